// The page's training, in a Web Worker so that the page never freezes: one web/page_api.cpp
// Training at a time, stepped in small chunks; between chunks the worker hands control back, so a
// "stop" message is seen after the current chunk. Messages in: {type: "train", task, scheme, seed,
// steps}, {type: "stop"}, {type: "extension", methods, lengths}. Messages out: "ready", "progress"
// (step, steps, losses of the chunk), "result" (web/page_api.cpp's result), "attention", "extension"
// (one method at one length), "done", and "error" with the engine's reason.
// Leaves out drawing (web/page.js).
importScripts('whereami_page.js');

let training = null;
let stopping = false;
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

// Steps in chunks of about 100 ms (the first chunk is one step, to learn how long a step takes).
function trainInChunks() {
  return new Promise((resolve, reject) => {
    let chunk = 1;
    const next = () => {
      try {
        if (stopping) return resolve('stopped');
        const started = performance.now();
        const progress = ask(training.run(chunk));
        const seconds = (performance.now() - started) / 1000;
        postMessage({ type: 'progress', step: progress.step, steps: progress.steps, losses: progress.losses, seconds });
        if (progress.step >= progress.steps) return resolve('done');
        const perStep = seconds / Math.max(1, progress.losses.length);
        chunk = Math.max(1, Math.min(50, Math.round(0.1 / Math.max(perStep, 1e-4))));
        setTimeout(next, 0);
      } catch (error) {
        reject(error);
      }
    };
    next();
  });
}

async function train(request) {
  ask(training.begin(request.task, request.scheme, String(request.seed), String(request.steps)));
  stopping = false;
  const ended = await trainInChunks();
  postMessage({ type: 'status', text: 'testing the model at 32, 64 and 128' });
  await new Promise((resolve) => setTimeout(resolve, 0));
  postMessage({ type: 'result', ended, result: ask(training.result()) });
  postMessage({ type: 'attention', attention: ask(training.attention(128)) });
}

async function extension(request) {
  for (const length of request.lengths)
    for (const method of request.methods) {
      postMessage({ type: 'status', text: `testing at ${length} with ${method || 'no extension'}` });
      await new Promise((resolve) => setTimeout(resolve, 0));
      postMessage({ type: 'extension', row: ask(training.extension(method, length)) });
    }
}

onmessage = async (event) => {
  const request = event.data;
  if (request.type === 'stop') {
    stopping = true;
    return;
  }
  await ready;
  try {
    if (request.type === 'train') await train(request);
    else if (request.type === 'extension') await extension(request);
    postMessage({ type: 'done', request: request.type });
  } catch (error) {
    postMessage({ type: 'error', request: request.type, text: error.message });
  }
};
