// platform/wasi_cc.mjs, the page's exercise compiler run by make web, writes what it compiled now:
// the same output compiled again from a changed source holds the change (with the last build's
// output in the compiler's tree, the old object came back), and a failed compile leaves none.
//   node tests/web/wasi_cc_test.mjs CLANG_PACKAGE    (make test-web runs it); exit code 1 on a failure
// Leaves out the page (tests/web/exercise_test.mjs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [clang] = process.argv.slice(2);
if (!clang) {
  console.error('usage: node tests/web/wasi_cc_test.mjs CLANG_PACKAGE');
  process.exit(2);
}
const script = resolve('platform/wasi_cc.mjs');
const work = mkdtempSync(join(tmpdir(), 'whereami-wasi-cc-'));
let failed = 0;
const check = (holds, claim, detail = '') => {
  console.log(holds ? `  [ok] ${claim}` : `  [FAILED] ${claim}${detail ? `: ${detail}` : ''}`);
  if (!holds) failed = 1;
};
const compile = () => {
  try {
    execFileSync('node', [script, resolve(clang), 'out/said.o', 'clang++', '-O2', '-c', 'src/said.cpp', '-o', 'out/said.o'],
                 { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    return 0;
  } catch (error) {
    return error.status;
  }
};
const say = (words) => writeFileSync(join(work, 'src', 'said.cpp'), `const char* said() { return "${words}"; }\n`);
execFileSync('mkdir', ['-p', join(work, 'src'), join(work, 'out')]);
say('first words');
check(compile() === 0 && readFileSync(join(work, 'out/said.o')).includes('first words'), 'a first compile writes its object');
say('second words');
const again = compile();
const object = readFileSync(join(work, 'out/said.o'));
check(again === 0 && object.includes('second words') && !object.includes('first words'),
  'compiled again over it from a changed source, the object holds the change');
rmSync(join(work, 'out/said.o'));
writeFileSync(join(work, 'src', 'said.cpp'), 'this is not C++\n');
check(compile() !== 0 && !existsSync(join(work, 'out/said.o')), 'a failed compile exits non-zero and writes no object');
rmSync(work, { recursive: true, force: true });
console.log(failed ? 'wasi_cc: FAILED (above)' : 'wasi_cc: each build writes what it compiled');
process.exit(failed);
