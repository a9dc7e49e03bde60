// The exercise's compiler, in a Web Worker (a module): Clang and LLD built for WebAssembly
// (@yowasp/clang, copied by make web into compiler/), fetched on the first message, then kept.
// Messages in: {type: "prepare"}, then {type: "check", code} for each Check: `code` is what the
// learner wrote in the marked place of lessons/exercises/rope_rotation.cpp.
// Messages out: "progress" {done, total} bytes of the compiler fetched; "ready" {bytes, seconds};
// "compiled" {ok, messages, wasm, seconds}: the compiler's messages as it gives them, with the
// learner's lines numbered as in the editor ("your code:LINE:COLUMN"), and on success the program
// (the learner's file linked with the checker and the library objects of exercise/engine.a, built
// by make web with the same compiler and flags: exercise/files.json).
// Leaves out running the program: web/exercise_run_worker.js does, in a worker the page can end.
let compiler = null;
let files = null;
let engine = null;

const START = '// ==== YOUR CODE: from here to the end marker';
const END = '// ==== END OF YOUR CODE';

// The learner's file as shipped, its marked place replaced by `code`, with #line directives so that
// the compiler numbers the learner's lines as the editor does.
function learnerFile(code) {
  const lines = files.source.split('\n');
  const start = lines.findIndex((line) => line.startsWith(START));
  const end = lines.findIndex((line) => line.startsWith(END));
  return [
    ...lines.slice(0, start + 1),
    '#line 1 "your code"',
    code,
    `#line ${end + 1} "${files.file}"`,
    ...lines.slice(end),
  ].join('\n');
}

// {"a/b.hpp": text} as the nested tree the compiler's file system takes.
function tree(flat) {
  const root = {};
  for (const [path, content] of Object.entries(flat)) {
    const parts = path.split('/');
    let node = root;
    for (const part of parts.slice(0, -1)) node = node[part] ??= {};
    node[parts[parts.length - 1]] = content;
  }
  return root;
}

async function prepare() {
  const t0 = performance.now();
  const [module, filesAnswer, engineAnswer] = await Promise.all([
    import('./compiler/bundle.js'),
    fetch('exercise/files.json'),
    fetch('exercise/engine.a'),
  ]);
  if (!filesAnswer.ok || !engineAnswer.ok) throw new Error('exercise/files.json or exercise/engine.a did not load (run make web again)');
  files = await filesAnswer.json();
  engine = new Uint8Array(await engineAnswer.arrayBuffer());
  let total = 0;
  // The compiler's own files (about 105 MB): fetched once, then from the browser's cache.
  await module.runLLVM(null, {}, {
    fetchProgress: ({ totalLength, doneLength }) => {
      total = totalLength;
      postMessage({ type: 'progress', done: doneLength, total: totalLength });
    },
  });
  compiler = module;
  postMessage({ type: 'ready', bytes: total, seconds: (performance.now() - t0) / 1000 });
}

async function check(code) {
  const t0 = performance.now();
  let messages = '';
  const decoder = new TextDecoder();
  const say = { stdout: (b) => b && (messages += decoder.decode(b)), stderr: (b) => b && (messages += decoder.decode(b)) };
  const sources = tree({ ...files.headers, [files.file]: learnerFile(code) });
  let made;
  try {
    made = await compiler.runClang(['clang++', ...files.compile, '-c', files.file, '-o', 'learner.o'], sources, say);
  } catch (error) {
    postMessage({ type: 'compiled', ok: false, messages: messages || String(error), seconds: (performance.now() - t0) / 1000 });
    return;
  }
  const compiled = messages;
  try {
    made = await compiler.runClang(['clang++', 'learner.o', 'engine.a', ...files.link, '-o', 'exercise.wasm'],
                                   { 'learner.o': made['learner.o'], 'engine.a': engine }, say);
  } catch (error) {
    postMessage({ type: 'compiled', ok: false, messages: messages || String(error), seconds: (performance.now() - t0) / 1000 });
    return;
  }
  const wasm = made['exercise.wasm'];
  postMessage({ type: 'compiled', ok: true, messages: compiled, wasm, seconds: (performance.now() - t0) / 1000 }, [wasm.buffer]);
}

onmessage = (event) => {
  const message = event.data;
  const work = message.type === 'prepare' ? prepare() : check(message.code);
  work.catch((error) => postMessage({ type: 'failed', message: String(error && error.message || error) }));
};
