// The exercise's compiler, in a Web Worker (a module): Clang and LLD built for WebAssembly
// (@yowasp/clang, copied by make web into compiler/), fetched on the first message, then kept (its
// large files compressed and kept in the browser's Cache Storage: web/packed_files.js).
// Messages in: {type: "prepare"}, then {type: "build", code, program} for each Check or Train: `code`
// is what the learner wrote in the marked place of lessons/exercises/rope_rotation.cpp, `program`
// "checker" (lessons/exercises/check/rope_rotation.cpp) or "trainer" (train/rope_rotation.cpp).
// Messages out: "progress" {done, total} bytes of the compiler fetched (0 of 0 when the browser has
// kept them); "ready" {bytes fetched, seconds};
// "compiled" {ok, messages, wasm, seconds}: the compiler's messages as it gives them, with the
// learner's lines numbered as in the editor ("your code:LINE:COLUMN"), and on success the program
// (the learner's file linked with the program's own object and the library objects of
// exercise/engine.a, built by make web with the same compiler and flags: exercise/files.json). The
// learner's object is kept for the next message with the same code.
// Leaves out running the program: web/exercise_run_worker.js does, in a worker the page can end.
import { packedFiles } from './packed_files.js';

let compiler = null;
let files = null;
let engine = null;
const programs = {};  // "checker", "trainer": their objects
let compiledCode = null, compiledObject = null, compiledMessages = '';

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
  // The compiler's own files and the library's archive, compressed (web/packed_files.js): fetched
  // once, then from the browser's Cache Storage. The compiler's bundle fetches its files through
  // globalThis.fetch as it is when the bundle loads, so that is set first.
  let fetched = 0;
  globalThis.fetch = await packedFiles(['compiler', 'exercise'], ({ done, total }) => {
    fetched = total;
    postMessage({ type: 'progress', done, total });
  });
  const names = ['files.json', 'engine.a', 'checker.o', 'trainer.o'];
  const [module, ...answers] = await Promise.all([import('./compiler/bundle.js'), ...names.map((name) => fetch(`exercise/${name}`))]);
  answers.forEach((answer, i) => {
    if (!answer.ok) throw new Error(`exercise/${names[i]} did not load (run make web again)`);
  });
  files = await answers[0].json();
  engine = new Uint8Array(await answers[1].arrayBuffer());
  programs.checker = new Uint8Array(await answers[2].arrayBuffer());
  programs.trainer = new Uint8Array(await answers[3].arrayBuffer());
  await module.runLLVM(null, {}, { fetchProgress: () => {} });
  compiler = module;
  postMessage({ type: 'ready', bytes: fetched, seconds: (performance.now() - t0) / 1000 });
}

async function build(code, program) {
  const t0 = performance.now();
  let messages = '';
  const decoder = new TextDecoder();
  const say = { stdout: (b) => b && (messages += decoder.decode(b)), stderr: (b) => b && (messages += decoder.decode(b)) };
  const failed = (error) => postMessage({ type: 'compiled', ok: false, messages: messages || String(error), seconds: (performance.now() - t0) / 1000 });
  if (code !== compiledCode) {
    compiledCode = null;
    const sources = tree({ ...files.headers, [files.file]: learnerFile(code) });
    try {
      const made = await compiler.runClang(['clang++', ...files.compile, '-c', files.file, '-o', 'learner.o'], sources, say);
      compiledObject = made['learner.o'];
    } catch (error) {
      failed(error);
      return;
    }
    compiledCode = code;
    compiledMessages = messages;
  }
  messages = '';
  let made;
  try {
    made = await compiler.runClang(['clang++', 'learner.o', 'program.o', 'engine.a', ...files.link, '-o', 'exercise.wasm'],
                                   { 'learner.o': compiledObject, 'program.o': programs[program], 'engine.a': engine }, say);
  } catch (error) {
    failed(error);
    return;
  }
  const wasm = made['exercise.wasm'];
  postMessage({ type: 'compiled', ok: true, messages: compiledMessages, wasm, seconds: (performance.now() - t0) / 1000 }, [wasm.buffer]);
}

onmessage = (event) => {
  const message = event.data;
  const work = message.type === 'prepare' ? prepare() : build(message.code, message.program);
  work.catch((error) => postMessage({ type: 'failed', message: String(error && error.message || error) }));
};
