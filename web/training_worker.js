// The page's training, in a Web Worker so that the page never freezes: one web/page_training.cpp
// Training at a time, stepped in small chunks; between chunks the worker hands control back, so a
// "stop" message is seen after the current chunk.
// Messages in: {type: "train", id, task, scheme, seed, steps}, {type: "stop"}, {type: "extension",
// id, methods, lengths}. Messages out, each with the id of the request it answers (the page drops
// answers to a request it has moved past): "ready", "progress" (step, steps, losses of the chunk),
// "status", "result" (web/page_training.cpp's result), "attention", "extension" (one method at one
// length), "done", and "error" with the engine's reason and whether the request was refused before
// it began (a bad seed, scheme, ...) or failed on the way (a loss that stopped being finite).
// Leaves out drawing (web/page.js).
importScripts('whereami_page.js');

let training = null;
let stopping = false;
let current = 0;  // the id of the request being answered
const post = (message) => postMessage({ ...message, id: current });
const ready = createWhereami().then((engine) => {
  training = new engine.Training();
  postMessage({ type: 'ready' });
});

// Each answer of the engine is JSON; one holding "error" ends the request.
function ask(answer) {
  const parsed = answer === '' ? {} : JSON.parse(answer);
  if (parsed.error) throw new Error(parsed.error);
  return parsed;
}

// An error the engine raised before a request began: a refusal of what was asked.
class Refused extends Error {}

const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));

// Steps in chunks of about 100 ms (the first chunk is one step, to learn how long a step takes).
async function trainInChunks() {
  let chunk = 1;
  for (;;) {
    if (stopping) return 'stopped';
    const started = performance.now();
    const progress = ask(training.run(chunk));
    const seconds = (performance.now() - started) / 1000;
    post({ type: 'progress', step: progress.step, steps: progress.steps, losses: progress.losses, seconds });
    if (progress.step >= progress.steps) return 'done';
    const perStep = seconds / Math.max(1, progress.losses.length);
    chunk = Math.max(1, Math.min(50, Math.round(0.1 / Math.max(perStep, 1e-4))));
    await yieldToMessages();  // a "stop" waiting in the queue is seen here
  }
}

async function train(request) {
  try {
    ask(training.begin(request.task, request.scheme, String(request.seed), String(request.steps)));
  } catch (error) {
    throw new Refused(error.message);
  }
  stopping = false;
  const ended = await trainInChunks();
  post({ type: 'status', text: 'testing the model at 32, 64 and 128' });
  await yieldToMessages();
  post({ type: 'result', ended, result: ask(training.result()) });
  post({ type: 'attention', attention: ask(training.attention(128)) });
}

async function extension(request) {
  for (const length of request.lengths)
    for (const method of request.methods) {
      post({ type: 'status', text: `testing at ${length} with ${method || 'no extension'}` });
      await yieldToMessages();
      post({ type: 'extension', row: ask(training.extension(method, length)) });
    }
}

async function answer(request) {
  current = request.id;
  try {
    if (request.type === 'train') await train(request);
    else if (request.type === 'extension') await extension(request);
    post({ type: 'done', request: request.type });
  } catch (error) {
    post({ type: 'error', request: request.type, refused: error instanceof Refused, text: error.message });
  }
}

// Requests are answered one after another, never interleaved (one model, one Training); "stop"
// acts at once on the request being answered.
let queue = ready;
onmessage = (event) => {
  const request = event.data;
  if (request.type === 'stop') stopping = true;
  else queue = queue.then(() => answer(request));
};
