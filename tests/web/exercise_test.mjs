// make test-web's exercise part: section 7 of the published page (make web-dist's folder, served by a
// plain static server: tests/web/plain_server.mjs) in headless Chromium, held to the native checker
// (build/exercises/fixtures/rope_rotation/*, the exercises' self-test programs).
//   node tests/web/exercise_test.mjs WEB_DIST NATIVE_FIXTURES SCREENSHOTS [CHROMIUM]
// Checks: before the section is opened nothing of the compiler is fetched (and the page is at most
// 2 MB); opened, it fetches the compiler with progress and shows the marked place as shipped, which
// Check calls not solved yet; the editor has line numbers and C++ highlighting; the right answer (tests/exercises/rope_rotation/right.cpp, lesson 06's
// rotation) is solved and lesson 06 joins the lessons' list; a turn by the negative angle and a row
// off by one get exactly the verdict line the native program gives for the same code; a file that
// does not compile shows the compiler's error at the line of the editor; an endless loop is stopped
// at the page's time limit; abort() and a recursion without end are said; Train with my rotation
// (30 steps) gives the same line twice, the native program's within 0.01; the time from Check to the
// verdict, first and later, is printed; the bytes fetched for the section at most 30 MB on the first
// visit and 1 MB on the second, and Check works once the server has stopped (the page reloaded from
// what the browser kept).
// Leaves out a 2000-step training (minutes; a learner's).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checks, launchBrowser } from './browser.mjs';
import { plainServe } from './plain_server.mjs';

const [web, fixtures, shots, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!web || !fixtures || !shots) {
  console.error('usage: node tests/web/exercise_test.mjs WEB_DIST NATIVE_FIXTURES SCREENSHOTS [CHROMIUM]');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const { check, failures } = checks();
// The native verdict: the last line the fixture's program prints (it exits 1 for a wrong answer).
const nativeVerdict = (name) => {
  let out;
  try {
    out = execFileSync(join(fixtures, name), { encoding: 'utf8' });
  } catch (error) {
    out = error.stdout;
  }
  return out.trimEnd().split('\n').pop();
};
const fixture = (name) => readFileSync(`tests/exercises/rope_rotation/${name}.cpp`, 'utf8');

const { url, served, stop } = await plainServe(web);
let stopped = false;
const browser = await launchBrowser(browserPath);
// The bytes served since `before` (a copy of served), for the paths `which` takes.
const servedSince = (before, which = () => true) =>
  [...served.entries()].filter(([path]) => which(path)).reduce((total, [path, bytes]) => total + bytes - (before.get(path) || 0), 0);
try {
  // One browser profile for both visits: what the first kept, the second finds.
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => message.type() === 'error' && errors.push(`console: ${message.text()}`));
  const text = (selector) => page.textContent(selector);
  const until = (predicate, argument, seconds) => page.waitForFunction(predicate, argument, { timeout: seconds * 1000 });

  console.log(`test-web: the exercise at ${url} in ${browserPath}`);
  await page.goto(url);
  await until(() => document.getElementById('status').textContent === 'ready', null, 60);
  const compilerPaths = () => [...served.keys()].filter((path) => path.startsWith('/compiler/') || path.startsWith('/exercise/'));
  check(compilerPaths().length === 0, 'before the exercise is opened nothing of the compiler is fetched', compilerPaths().join(' '));
  const firstLoad = servedSince(new Map());
  check(firstLoad <= 2000000, 'and the page has loaded at most 2 MB', `${firstLoad} bytes`);
  const beforeOpening = new Map(served);
  check(!(await page.locator('#lesson-select option[value^="06_"]').count()), 'lesson 06 is not in the lessons\' list before the exercise is solved');

  await page.evaluate(() => localStorage.removeItem('whereami-exercise-code'));
  const opened = Date.now();
  await page.click('#exercise-open summary');
  await until(() => /fetching the compiler: [0-9.]+ of [0-9.]+ MB/.test(document.getElementById('exercise-progress').textContent) ||
                    !document.getElementById('exercise-check').disabled, null, 120);
  check(true, 'opening the exercise fetches the compiler, with progress');
  await until(() => !document.getElementById('exercise-check').disabled, null, 300);
  const fetched = servedSince(beforeOpening);
  console.log(`  the compiler was ready ${((Date.now() - opened) / 1000).toFixed(1)} s after opening: ${await text('#exercise-progress')}`);
  console.log(`  first visit: ${fetched} bytes fetched for section 7 (the compiler, exercise/, the editor, the workers)`);
  check(fetched <= 30e6, 'the first visit fetches at most 30 MB for section 7', `${fetched} bytes`);
  check(compilerPaths().some((path) => path.endsWith('.wasm.gz')) && !compilerPaths().some((path) => path.endsWith('llvm.core.wasm')),
    'the compiler is fetched compressed', compilerPaths().join(' '));
  const editorShown = await page.evaluate(() => ({
    numbers: document.querySelectorAll('#exercise .CodeMirror-linenumber').length,
    keywords: document.querySelectorAll('#exercise .CodeMirror .cm-keyword').length,
    hidden: getComputedStyle(document.getElementById('exercise-code')).display === 'none',
  }));
  check(editorShown.hidden && editorShown.numbers > 5 && editorShown.keywords > 0,
    'the editor shows line numbers and C++ highlighting', JSON.stringify(editorShown));
  const shipped = readFileSync('lessons/exercises/rope_rotation.cpp', 'utf8');
  const editor = await page.inputValue('#exercise-code');
  check(shipped.includes(editor) && editor.includes('exercise::not_written_yet(x, angles);'),
    'the editor holds the marked place of lessons/exercises/rope_rotation.cpp as shipped');

  // Check with `code` in the editor; the verdict line and the seconds from Check to it.
  const checkCode = async (code, seconds = 180, on = page) => {
    // As the page's checks set it: the text area's value, then an input event.
    await on.evaluate((text) => {
      const area = document.getElementById('exercise-code');
      area.value = text;
      area.dispatchEvent(new Event('input'));
    }, code);
    const t0 = Date.now();
    await on.click('#exercise-check');
    await on.waitForFunction(() => !document.getElementById('exercise-check').disabled &&
                      !/^(compiling|compiled)/.test(document.getElementById('exercise-verdict').textContent), null, { timeout: seconds * 1000 });
    return { verdict: await on.textContent('#exercise-verdict'), seconds: (Date.now() - t0) / 1000, report: await on.textContent('#exercise-report') };
  };

  const scaffold = await checkCode(editor);
  console.log(`  Check to verdict, the first time: ${scaffold.seconds.toFixed(1)} s`);
  check(scaffold.verdict.startsWith('rope_rotation: not solved yet: '), 'the file as shipped is not solved yet', scaffold.verdict);

  const right = await checkCode(fixture('right'));
  console.log(`  Check to verdict, again: ${right.seconds.toFixed(1)} s`);
  check(right.verdict === 'rope_rotation: solved' && right.report.includes('q.k with the query at   3, the key at 103'),
    'the right answer (lesson 06\'s rotation) is solved, with its four scores', right.verdict);
  check((await page.locator('#lesson-select option[value^="06_"]').count()) === 1, 'and lesson 06 joins the lessons\' list');
  await page.locator('#exercise').screenshot({ path: `${shots}/8-exercise-solved.png` });

  // Train with my rotation at 30 steps: the two lines of make exercise-train, held to the native
  // program's (train_right: the same right answer) each accuracy within 0.01 (tests/web_agreement.sh).
  {
    await page.fill('#exercise-steps', '30');
    const t0 = Date.now();
    await page.click('#exercise-train');
    await until(() => !document.getElementById('exercise-train').disabled &&
                      !/^(compiling|training)/.test(document.getElementById('exercise-train-verdict').textContent), null, 600);
    const trained = await text('#exercise-train-output');
    const verdict = await text('#exercise-train-verdict');
    console.log(`  Train with my rotation, 30 steps: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    let native;
    try {
      native = execFileSync(join(fixtures, 'train_right'), ['lag', '0', '30'], { encoding: 'utf8' });
    } catch (error) {
      native = error.stdout || '';
    }
    const line = (output, who) => (output.split('\n').find((l) => l.trimStart().startsWith(`${who}:`)) || '').replace(/^ *[a-z]+: */, '');
    const accuracies = (l) => (l.match(/[0-9]\.[0-9]{3}/g) || []).map(Number);
    const words = (l) => l.replace(/[0-9]\.[0-9]{3}/g, '#');
    const ours = line(trained, 'library'), theirs = line(native, 'library');
    const worst = Math.max(...accuracies(ours).map((a, i) => Math.abs(a - accuracies(theirs)[i])));
    check(verdict.startsWith('exercise-train rope_rotation: the same line') && line(trained, 'yours') === ours &&
          ours !== '' && words(ours) === words(theirs) && worst <= 0.01,
      'Train with my rotation gives the library\'s line and the same line for the right answer, as natively (within 0.01)',
      `${verdict} | page: ${ours} | native: ${theirs}`);
  }

  for (const [name, what] of [['wrong_backwards', 'a turn by the negative angle'], ['wrong_row_off_by_one', 'a row off by one']]) {
    const native = nativeVerdict(name);
    const ours = await checkCode(fixture(name));
    check(ours.verdict === native, `${what} gets the native checker's verdict line`, `page: ${ours.verdict} | native: ${native}`);
  }
  await page.locator('#exercise').screenshot({ path: `${shots}/9-exercise-wrong.png` });

  const broken = await checkCode(fixture('does_not_compile_missing_return'));
  check(broken.verdict.includes('does not compile') && /your code:[0-9]+:[0-9]+: error: /.test(broken.report),
    'code that does not compile shows the compiler\'s error at the editor\'s line', `${broken.verdict} | ${broken.report.slice(0, 300)}`);
  const reported = /your code:([0-9]+):[0-9]+: error: /.exec(broken.report);
  const marked = await page.evaluate(() => ({
    lines: exerciseEditor.marks.filter(({ kind }) => kind === 'error').map(({ at }) => at + 1),
    shown: document.querySelectorAll('#exercise .exercise-error-line').length,
    notes: [...document.querySelectorAll('#exercise .exercise-error-note')].map((note) => note.textContent),
  }));
  check(reported && marked.lines.includes(Number(reported[1])) && marked.shown > 0 && marked.notes.some((note) => note.includes('error')),
    'and the editor marks the error at that line, its message under it', `${reported && reported[1]} | ${JSON.stringify(marked)}`);
  await page.locator('#exercise-code + .CodeMirror').scrollIntoViewIfNeeded();
  await page.locator('#exercise').screenshot({ path: `${shots}/10-exercise-compile-error.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#exercise-code + .CodeMirror').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/11-exercise-compile-error-390px.png` });
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(sideways <= 0, 'at 390 px the page does not scroll sideways with the editor open', `${sideways} px`);
  await page.setViewportSize({ width: 1100, height: 900 });

  const endless = await checkCode(fixture('right').replace('Tensor apply_rope(const Tensor& x, const Tensor& angles) {',
    'Tensor apply_rope(const Tensor& x, const Tensor& angles) {\n    for (volatile long spin = 0;; spin = spin + 1) {}'), 240);
  check(/ran for more than [0-9]+ s, so it was stopped/.test(endless.verdict) && endless.seconds < 120,
    'an endless loop is stopped at the time limit and said so', `${endless.verdict} after ${endless.seconds.toFixed(1)} s`);
  const runWorkers = () => page.workers().filter((worker) => worker.url().includes('exercise_run_worker')).length;
  for (let waited = 0; waited < 20 && runWorkers() > 0; ++waited) await page.waitForTimeout(500);
  check(runWorkers() === 0, 'and its worker is ended', `${runWorkers()} left`);

  // Code that stops the program: abort() and a recursion without end, each said, and the page goes on.
  const aborted = await checkCode(fixture('right').replace('Tensor apply_rope(const Tensor& x, const Tensor& angles) {',
    'Tensor apply_rope(const Tensor& x, const Tensor& angles) {\n    if (x.size(0) > 0) std::abort();'));
  check(/^rope_rotation: your code stopped the program with abort\(\)/.test(aborted.verdict), 'abort() in your code is said', aborted.verdict);
  const deep = await checkCode(fixture('right').replace('RopeScores exercise_scores(const Tensor& vector) {',
    'RopeScores exercise_scores(const Tensor& vector) {\n    if (vector.numel() > 0) { volatile char pad[4096] = {}; RopeScores deeper = exercise_scores(vector); deeper.query3_key3 += pad[7]; return deeper; }'));
  check(/^rope_rotation: your code stopped the program: it needed more stack than it has/.test(deep.verdict) ||
        /^rope_rotation: your code stopped the program with a bad memory access/.test(deep.verdict),
    'a recursion without end is said', deep.verdict);
  const after = await checkCode(fixture('right'));
  check(after.verdict === 'rope_rotation: solved', 'and the next Check works', after.verdict);

  // Output floods: a byte a write, 1.2 million times (past the 1 MiB cut), then the right answer (the output cut at 1 MiB,
  // the verdict the checker's, the page answering meanwhile); and a print loop without end, stopped
  // near the time limit, not long after it.
  const atStart = 'Tensor apply_rope(const Tensor& x, const Tensor& angles) {';
  const floodAt = Date.now();
  const flood = await checkCode('#include <cstdio>\n' + fixture('right').replace(atStart,
    `${atStart}\n    static bool once = false;\n    if (!once) { once = true; for (long i = 0; i < 1200000; ++i) std::fputc('x', stderr); }`));
  check(flood.verdict === 'rope_rotation: solved' && /printed more than 1048576 bytes; the rest is cut/.test(flood.report),
    '1.2 million one-byte writes: the output cut at 1 MiB, the verdict the checker\'s', `${flood.verdict} after ${flood.seconds.toFixed(1)} s`);
  console.log(`  1.2 million one-byte writes: checked in ${((Date.now() - floodAt) / 1000).toFixed(1)} s`);
  const printing = await checkCode('#include <cstdio>\n' + fixture('right').replace(atStart, `${atStart}\n    for (;;) std::fputc('x', stderr);`), 120);
  // The run's own time: the check's, less the compiling and linking the progress line names.
  const times = /checked in ([0-9.]+) s \(compiling and linking ([0-9.]+) s\)/.exec(await text('#exercise-progress'));
  const ran = times ? Number(times[1]) - Number(times[2]) : Infinity;
  check(/ran for more than [0-9]+ s, so it was stopped/.test(printing.verdict) && ran < 30,
    'a print loop without end is stopped at the time limit, not long after', `${printing.verdict}; it ran ${ran.toFixed(1)} s`);
  console.log(`  a print loop without end: stopped after ${ran.toFixed(1)} s of running (the limit: 20 s)`);

  // A source past the browser's storage quota (6 MB): checked all the same, and said not to be kept.
  const huge = await checkCode(`${fixture('right')}\n${`// ${'x'.repeat(77)}\n`.repeat(75000)}`, 240);
  const hugeProgress = await text('#exercise-progress');
  check(huge.verdict === 'rope_rotation: solved' && /too large for this browser's storage: it was checked, not kept/.test(hugeProgress),
    'a 6 MB source is checked, and said not to be kept', `${huge.verdict} | ${hugeProgress} after ${huge.seconds.toFixed(1)} s`);

  // One at a time: a Train sent while Check runs is ignored, and Check's verdict is the checker's.
  const trainedBefore = await text('#exercise-train-verdict');
  await page.evaluate((code) => {
    const area = document.getElementById('exercise-code');
    area.value = code;
    area.dispatchEvent(new Event('input'));
  }, fixture('right'));
  await page.click('#exercise-check');
  const during = await page.evaluate(() => {
    const disabled = document.getElementById('exercise-train').disabled;
    document.getElementById('exercise-train-form').requestSubmit();
    document.getElementById('exercise-check').click();
    return disabled;
  });
  await until(() => !document.getElementById('exercise-check').disabled &&
                    !/^(compiling|compiled)/.test(document.getElementById('exercise-verdict').textContent), null, 180);
  const raced = await text('#exercise-verdict');
  check(during && raced === 'rope_rotation: solved' && (await text('#exercise-train-verdict')) === trainedBefore,
    'Train and a second Check sent during a Check are ignored; its verdict is the checker\'s', `${during} | ${raced}`);
  check(errors.length === 0, 'no error in the page or its console', errors.join('; '));

  // The second visit, in the same browser profile: what the first kept is not fetched again.
  const beforeSecond = new Map(served);
  const second = await context.newPage();
  await second.goto(url);
  await second.waitForFunction(() => document.getElementById('status').textContent === 'ready', null, { timeout: 60000 });
  const pageBytes = servedSince(beforeSecond);
  const beforeSection = new Map(served);
  await second.click('#exercise-open summary');
  await second.waitForFunction(() => !document.getElementById('exercise-check').disabled, null, { timeout: 120000 });
  const again = servedSince(beforeSection);
  console.log(`  second visit: ${again} bytes fetched for section 7 (${pageBytes} for the page before it): ${await second.textContent('#exercise-progress')}`);
  check(again <= 1e6, 'the second visit fetches at most 1 MB for section 7', `${again} bytes`);
  check(/kept by your browser/.test(await second.textContent('#exercise-progress')),
    'and takes the compiler from the browser\'s Cache Storage', await second.textContent('#exercise-progress'));
  await second.close();

  // The server stopped: the page, reloaded, and its exercise work from what the browser kept.
  await stop();
  stopped = true;
  await page.reload();
  await page.waitForFunction(() => document.getElementById('status').textContent === 'ready', null, { timeout: 60000 });
  await page.click('#exercise-open summary');
  await page.waitForFunction(() => !document.getElementById('exercise-check').disabled ||
                                   /did not load/.test(document.getElementById('exercise-progress').textContent), null, { timeout: 120000 });
  const offline = await checkCode(fixture('right'));
  check(offline.verdict === 'rope_rotation: solved', 'with the server stopped, the page reloads and Check of the right answer is solved',
    `${offline.verdict} | ${await text('#exercise-progress')}`);
} catch (error) {
  check(false, 'the exercise test ran to its end', error.message.split('\n')[0]);
} finally {
  await browser.close();
  if (!stopped) await stop();
}
console.log(`test-web: exercise ${failures() ? `${failures()} check(s) FAILED` : 'ok'}`);
process.exit(failures() ? 1 : 0);
