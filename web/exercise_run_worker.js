// The learner's exercise program, run in a Web Worker (a module) the page ends at its time limit:
// the WebAssembly that web/exercise_worker.js linked, under @bjorn3/browser_wasi_shim (WASI in the
// browser; make web copies it into wasi_shim/). As make exercise and make exercise-train run them: the
// verdict also written, with a token, to a descriptor of its own (WAI_VERDICT_FD,
// lessons/exercises/exercise.hpp), the only place a verdict is taken from.
// Message in: {wasm, token, args}: args after the program's name (the training's TASK SEED STEPS).
// Messages out: "output" {text} (standard output and error as written, in batches,
// up to 1 MiB, then a line saying the rest was cut), "verdict" {line} (a line on the verdict's
// descriptor that starts with the token, without it), "exit" {code} or "trap" {message}
// (WebAssembly stopped the program: an access outside its memory, abort(), a stack overflow).
// Leaves out files and standard input: the checker reads none.
import { WASI, File, OpenFile, ConsoleStdout, WASIProcExit } from './wasi_shim/index.js';

const OUTPUT_LIMIT = 1 << 20;
let written = 0;
let cut = false;
const decoder = new TextDecoder();
// Output is sent in batches (at most every 100 ms, or 64 KiB), not a message a write: a program that
// writes a byte at a time would otherwise flood the page with millions of messages.
let batch = '';
let sent = performance.now();

function flush() {
  if (batch) postMessage({ type: 'output', text: batch });
  batch = '';
  sent = performance.now();
}

function output(bytes) {
  if (cut) return;
  if (written + bytes.length > OUTPUT_LIMIT) {
    batch += decoder.decode(bytes.subarray(0, OUTPUT_LIMIT - written));
    batch += `\nrope_rotation: your code printed more than ${OUTPUT_LIMIT} bytes; the rest is cut\n`;
    cut = true;
    flush();
    return;
  }
  written += bytes.length;
  batch += decoder.decode(bytes, { stream: true });
  if (batch.length >= 65536 || performance.now() - sent >= 100) flush();
}

onmessage = async (event) => {
  const { wasm, token, args = [] } = event.data;
  let verdictText = '';
  const verdict = new ConsoleStdout((bytes) => {
    verdictText += decoder.decode(bytes);
    const lines = verdictText.split('\n');
    verdictText = lines.pop();
    for (const line of lines) if (line.startsWith(`${token} `)) postMessage({ type: 'verdict', line: line.slice(token.length + 1) });
  });
  const wasi = new WASI([args.length ? 'train_rope_rotation' : 'rope_rotation', ...args],
                        [`WAI_VERDICT_FD=3`, `WAI_VERDICT_TOKEN=${token}`],
                        [new OpenFile(new File([])), new ConsoleStdout(output), new ConsoleStdout(output), verdict]);
  try {
    const { instance } = await WebAssembly.instantiate(wasm, { wasi_snapshot_preview1: wasi.wasiImport });
    const code = wasi.start(instance);
    flush();
    postMessage({ type: 'exit', code });
  } catch (error) {
    flush();
    if (error instanceof WASIProcExit) postMessage({ type: 'exit', code: error.code });
    else postMessage({ type: 'trap', message: `${error && error.name ? `${error.name}: ` : ''}${error && error.message || error}` });
  }
};
