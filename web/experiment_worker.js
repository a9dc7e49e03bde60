// One run of the page's experiment at a time (web/experiment.js starts as many of these workers as
// the machine has cores): web/page_training.cpp's Training, begun, stepped to the end and tested, as
// train_position runs it on one thread. The page ends a worker by terminating it (Stop).
// Messages in: {type: "run", task, scheme, seed, steps}. Out: "ready"; "progress" (step, steps)
// about once a second; "result" (line, the run's result line); "error" (text, the engine's reason).
// Leaves out choosing the runs and keeping their lines (web/experiment.js).
importScripts('whereami_page.js');

let training = null;
const ready = createWhereami().then((engine) => {
  training = new engine.Training();
  postMessage({ type: 'ready' });
});

function ask(answer) {
  const parsed = answer === '' ? {} : JSON.parse(answer);
  if (parsed.error) throw new Error(parsed.error);
  return parsed;
}

function run(request) {
  ask(training.begin(request.task, request.scheme, String(request.seed), String(request.steps)));
  let reported = performance.now();
  for (;;) {
    const progress = ask(training.run(10));
    if (performance.now() - reported > 1000 || progress.step >= progress.steps) {
      postMessage({ type: 'progress', step: progress.step, steps: progress.steps });
      reported = performance.now();
    }
    if (progress.step >= progress.steps) break;
  }
  return ask(training.result()).line;
}

onmessage = (event) => {
  ready.then(() => {
    try {
      postMessage({ type: 'result', line: run(event.data) });
    } catch (error) {
      postMessage({ type: 'error', text: error.message });
    }
  });
};
