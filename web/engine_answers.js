// What the page's workers share: the engine (web/page_api.cpp) answers every call in JSON, and an
// answer holding "error" is the engine's one-line reason, thrown here as an Error.
// Leaves out what each worker asks (web/training_worker.js, web/experiment_worker.js).
function ask(answer) {
  const parsed = answer === '' ? {} : JSON.parse(answer);
  if (parsed.error) throw new Error(parsed.error);
  return parsed;
}
