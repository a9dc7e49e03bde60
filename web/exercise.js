// Section 7, the course's exercise in the page: the marked place of lessons/exercises/rope_rotation.cpp
// in an editor (web/exercise_editor.js); Check compiles it with the checker (web/exercise_worker.js, kept between checks)
// and runs the program (web/exercise_run_worker.js, a fresh worker each time, ended at the time
// limit); the verdict as make exercise EXERCISE=rope_rotation says it, with the checker's report.
// "Train with my rotation" links the same code with the training program instead and runs it as
// make exercise-train does (no time limit: Stop ends it). Opening the section fetches the compiler;
// nothing is fetched for it before.
// Leaves out the other exercises; uses page.js's $ and setBusy, and exercise_editor.js.
'use strict';

const exercise = {
  compiler: null,       // the compile worker, once the section is opened
  ready: null,          // resolves when the compiler has loaded
  running: null,        // the program's worker while it runs
  busy: false,          // a Check or a training is under way: the other waits for it
  notKept: false,       // the last text checked could not be kept in the browser's storage
  stop: null,           // ends the training run
  source: null,         // the learner's file as shipped (exercise/files.json)
  SECONDS: 20,          // the page's time limit on the program (make exercise's: 60 s)
  KEPT: 'whereami-exercise-code',
  SOLVED: 'whereami-exercise-solved',
};

// The shipped file's marked place, without its two marker lines.
function markedPlace(source) {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => line.startsWith('// ==== YOUR CODE: from here to the end marker'));
  const end = lines.findIndex((line) => line.startsWith('// ==== END OF YOUR CODE'));
  return lines.slice(start + 1, end).join('\n');
}

function showVerdict(line, kind) {
  const verdict = $('exercise-verdict');
  verdict.textContent = line;
  verdict.className = `result ${kind || ''}`;
}

// The compile worker's answer to one message of `type`.
function ask(worker, type, onProgress) {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.type === 'progress' && onProgress) onProgress(message);
      else if (message.type === 'failed') reject(new Error(message.message));
      else if (message.type === type) resolve(message);
    };
    worker.onerror = (error) => reject(new Error(error.message || 'the compiler worker failed'));
  });
}

function openExercise() {
  if (exercise.compiler) return;
  exercise.compiler = new Worker('exercise_worker.js', { type: 'module' });
  const progress = $('exercise-progress');
  progress.textContent = 'fetching the compiler…';
  setBusy('exercise', ': fetching the compiler');
  const loaded = ask(exercise.compiler, 'ready', ({ done, total }) => {
    progress.textContent = total ? `fetching the compiler: ${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`
                                 : 'loading the compiler your browser has kept…';
  });
  exercise.compiler.postMessage({ type: 'prepare' });
  // Without its editor (CodeMirror did not load), the text area is the editor.
  const editor = openEditor().catch((error) => console.warn(`the editor did not load (${error.message}): a plain text area instead`));
  const files = fetch('exercise/files.json').then((answer) => answer.json()).then(async (files) => {
    exercise.source = files.source;
    const kept = localStorage.getItem(exercise.KEPT);
    await editor;
    setEditorText(kept !== null ? kept : markedPlace(files.source));
    $('exercise-reset').disabled = false;
  });
  exercise.ready = Promise.all([loaded, files]).then(([ready]) => {
    progress.textContent = `the compiler is ready (${ready.bytes ? `${(ready.bytes / 1e6).toFixed(1)} MB fetched` : 'kept by your browser'}, ` +
                           `in ${ready.seconds.toFixed(1)} s)`;
    $('exercise-check').disabled = $('exercise-train').disabled = false;
    setBusy('exercise', null);
  }).catch((error) => {
    progress.textContent = `the compiler did not load: ${error.message}`;
    setBusy('exercise', null);
  });
}

// A random token for the verdict's descriptor: the learner's output cannot carry it.
function token() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Runs the linked program with `args`, its output shown in `shown` as it comes; resolves with what it
// printed and how it ended: at the time limit (`seconds`, or none) or by exercise.stop.
function runProgram(wasm, args, shown, seconds) {
  return new Promise((resolve) => {
    const worker = new Worker('exercise_run_worker.js', { type: 'module' });
    exercise.running = worker;
    let output = '';
    let verdict = null;
    let timer = null;
    // Shown at most once a frame, however often output comes.
    let drawing = false;
    const draw = () => {
      drawing = false;
      shown.textContent = output;
    };
    const finish = (ending) => {
      clearTimeout(timer);
      draw();
      worker.terminate();
      exercise.running = null;
      exercise.stop = null;
      resolve({ output, verdict, ...ending });
    };
    if (seconds) timer = setTimeout(() => finish({ timedOut: true }), seconds * 1000);
    exercise.stop = () => finish({ stopped: true });
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.type === 'output') {
        output += message.text;
        if (!drawing) {
          drawing = true;
          requestAnimationFrame(draw);
        }
      } else if (message.type === 'verdict') verdict = message.line;
      else if (message.type === 'exit') finish({ code: message.code });
      else if (message.type === 'trap') finish({ trap: message.message });
    };
    worker.onerror = (error) => finish({ trap: error.message || 'the program\'s worker failed' });
    worker.postMessage({ wasm, token: token(), args });
  });
}

// The compile worker's build of the editor's code with `program` ("checker" or "trainer").
async function buildProgram(program) {
  const code = editorText();
  exercise.notKept = false;
  try {
    localStorage.setItem(exercise.KEPT, code);
  } catch {
    // The browser's storage is full (or off): the check goes on, the text is not kept, and that is said.
    exercise.notKept = true;
  }
  exercise.compiler.postMessage({ type: 'build', code, program });
  return ask(exercise.compiler, 'compiled');
}

const COMPILE_ERROR = 'your code does not compile (the compiler\'s messages below, each marked at its line in the editor: "your code:LINE")';

// The verdict line for how the program ended, as lessons/exercises/checker_status.sh words it natively.
function endingVerdict(run, name = 'rope_rotation') {
  if (run.verdict !== null && !run.timedOut && run.trap === undefined && !run.stopped) return run.verdict;
  if (run.stopped) return `${name}: stopped`;
  if (run.timedOut) return `${name}: your code ran for more than ${exercise.SECONDS} s, so it was stopped (a loop that never ends, perhaps)`;
  if (run.trap !== undefined) {
    // As checker_status.sh says a signal natively: what WebAssembly's own words mean, and that they
    // do not name the line.
    const unknown = 'it does not say which line of your code did it, nor why; undefined behaviour anywhere in it can end this way';
    if (/unreachable/.test(run.trap))
      return `${name}: your code stopped the program with abort() or std::terminate (WebAssembly: ${run.trap}); ${unknown}`;
    if (/call stack/i.test(run.trap))
      return `${name}: your code stopped the program: it needed more stack than it has (a recursion that never ends, perhaps; WebAssembly: ${run.trap})`;
    if (/memory access out of bounds/.test(run.trap))
      return `${name}: your code stopped the program with a bad memory access, outside the program's memory (WebAssembly: ${run.trap}); ${unknown}`;
    return `${name}: your code stopped the program (WebAssembly: ${run.trap}); ${unknown}`;
  }
  // The training's own refusals (bad arguments, exit 2) and its out-of-time line (3) end its output.
  if (run.code === 2 || run.code === 3) return run.output.trimEnd().split('\n').pop();
  return `${name}: your code ended the program before the checker could judge it (exit status ${run.code} and no verdict: an _exit() in your code?)`;
}

async function check() {
  $('exercise-report').textContent = '';
  showVerdict('compiling your code…');
  setBusy('exercise', ': compiling');
  clearCompilerMarks();
  const t0 = performance.now();
  try {
    const compiled = await buildProgram('checker');
    markCompilerMessages(compiled.messages || '');
    if (!compiled.ok) {
      showVerdict(`rope_rotation: ${COMPILE_ERROR}`, 'wrong');
      $('exercise-report').textContent = compiled.messages;
      $('exercise-progress').textContent = `compiled in ${compiled.seconds.toFixed(1)} s`;
      return;
    }
    showVerdict(`compiled in ${compiled.seconds.toFixed(1)} s; running the checker…`);
    setBusy('exercise', ': checking');
    const run = await runProgram(compiled.wasm, [], $('exercise-report'), exercise.SECONDS);
    const line = endingVerdict(run);
    const solved = line === 'rope_rotation: solved';
    showVerdict(line, solved ? 'solved' : line.startsWith('rope_rotation: not solved yet') ? '' : 'wrong');
    $('exercise-report').textContent = (run.output + (compiled.messages ? `\n(the compiler's warnings)\n${compiled.messages}` : '')).trimEnd();
    $('exercise-progress').textContent = `checked in ${((performance.now() - t0) / 1000).toFixed(1)} s (compiling and linking ${compiled.seconds.toFixed(1)} s)` +
      (exercise.notKept ? '; your text is too large for this browser\'s storage: it was checked, not kept' : '');
    if (solved) {
      localStorage.setItem(exercise.SOLVED, '1');
      if (typeof showSolvedLessons === 'function') showSolvedLessons();
    }
  } catch (error) {
    showVerdict(`the check did not run: ${error.message}`, 'wrong');
  } finally {
    setBusy('exercise', null);
  }
}

async function train() {
  const verdict = $('exercise-train-verdict');
  const shown = $('exercise-train-output');
  const args = [$('exercise-task').value, $('exercise-seed').value.trim(), $('exercise-steps').value.trim()];
  shown.textContent = '';
  verdict.textContent = 'compiling your code…';
  setBusy('exercise', ': compiling');
  try {
    clearCompilerMarks();
    const compiled = await buildProgram('trainer');
    markCompilerMessages(compiled.messages || '');
    if (!compiled.ok) {
      verdict.textContent = `exercise-train rope_rotation: ${COMPILE_ERROR}`;
      shown.textContent = compiled.messages;
      return;
    }
    verdict.textContent = `training: ${args.join(' ')} (the library's run, then yours)…`;
    setBusy('exercise', ': training');
    $('exercise-train-stop').disabled = false;
    const run = await runProgram(compiled.wasm, args, shown, null);
    verdict.textContent = endingVerdict(run, 'exercise-train rope_rotation');
  } catch (error) {
    verdict.textContent = `the training did not run: ${error.message}`;
  } finally {
    $('exercise-train-stop').disabled = true;
    setBusy('exercise', null);
  }
}

$('exercise-open').addEventListener('toggle', () => {
  if ($('exercise-open').open) openExercise();
});
// One at a time: Check and Train share the compile worker and the program's worker, so each waits,
// buttons disabled, until the other has ended (a click in between, or a form sent by Enter, is ignored).
function exclusive(task) {
  if (exercise.busy || !exercise.ready) return;
  exercise.busy = true;
  $('exercise-check').disabled = $('exercise-train').disabled = true;
  exercise.ready.then(task).finally(() => {
    exercise.busy = false;
    $('exercise-check').disabled = $('exercise-train').disabled = false;
  });
}
$('exercise-check').addEventListener('click', () => exclusive(check));
$('exercise-train-form').addEventListener('submit', (event) => {
  event.preventDefault();
  exclusive(train);
});
$('exercise-train-stop').addEventListener('click', () => exercise.stop && exercise.stop());
$('exercise-reset').addEventListener('click', () => {
  if (exercise.source === null) return;
  setEditorText(markedPlace(exercise.source));
  clearCompilerMarks();
  localStorage.removeItem(exercise.KEPT);
});
