// make test-web's browser part: the published page (make web-dist's build/web-dist/, served by a plain
// static server: tests/web/plain_server.mjs) in headless Chromium, used as a learner would, through
// its controls:
//   - it loads with no error and says "ready";
//   - it loads at most 2 MB before anything is run;
//   - the widget: the sliders dragged with the mouse, then set with the arrow keys to the chapter's
//     places (3, 5): RoPE's score is the chapter's printed -6.3341; "Move both by +5" leaves it
//     unchanged and says so, while the sinusoid score changes; at (3, 10) it is the chapter's -5.9618;
//     the rotation's drawing turns when a slider moves, and on "+5" every pair's arrows turn while the
//     angles between them stay, and the page says so;
//   - the experiment's section at 20 steps and seed 0 (14 runs): a reload midway keeps the finished
//     runs and goes on without running them again; every line is the native program's, to the
//     character, in results/table.txt's order; the table beside the chapter's and the two pictures
//     appear; Stop in a 2000-step experiment leaves no worker running;
//   - training: lag rope seed 0 for 50 steps; the loss falls (step 50 below step 1), a result line
//     appears in train_position's format, each accuracy within 0.01 of the native program's for the
//     same run (tests/web_agreement.sh says why 0.01), the chapter's two rows beside it, and an
//     attention map per layer;
//   - Stop: a 2000-step run stopped after a few steps ends early and says after how many;
//   - a bad scheme is refused with the engine's reason, and training works again afterwards;
//   - one lesson (05_rope) runs in the page to "lesson 05: ok" and exit code 0;
//   - context extension on the trained RoPE model fills its table;
//   - the page on a phone-sized screen (390 x 844) has no sideways scrolling of the page itself;
//   - no error in the page or its console, nothing loaded from outside the page's folder, and all
//     it loaded (engine, lessons module, scripts, a lesson's source) at most 5 MB.
// Screenshots of each stage go to SCREENSHOTS/. Exit code 1 if any check failed.
//   node tests/web/page_test.mjs WEB_DIST NATIVE_TRAIN_POSITION SCREENSHOTS [CHROMIUM]
// Leaves out timing (make bench-web) and the node programs (tests/web_agreement.sh).
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checks, launchBrowser } from './browser.mjs';
import { plainServe } from './plain_server.mjs';

const [web, nativeTrain, shots, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!web || !nativeTrain || !shots) {
  console.error('usage: node tests/web/page_test.mjs WEB_DIST NATIVE_TRAIN_POSITION SCREENSHOTS [CHROMIUM]');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const { check, failures } = checks();
const accuracies = (line) => (line.match(/[0-9]\.[0-9]{3}/g) || []).map(Number);
const words = (line) => line.replace(/[0-9]\.[0-9]{3}/g, '#');

const { url, served, stop } = await plainServe(web);
const browser = await launchBrowser(browserPath);
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => message.type() === 'error' && errors.push(`console: ${message.text()}`));
  // Everything the page asks for: from its own folder only (no CDN, nothing from the network).
  const foreign = [];
  page.on('request', (request) => {
    const where = request.url();
    if (!where.startsWith(url) && !where.startsWith('data:') && !where.startsWith('blob:')) foreign.push(where);
  });
  const text = (selector) => page.textContent(selector);
  const until = (predicate, argument, seconds) => page.waitForFunction(predicate, argument, { timeout: seconds * 1000 });

  console.log(`test-web: the page at ${url} in ${browserPath}`);
  await page.goto(url);
  await until(() => document.getElementById('status').textContent === 'ready', null, 60);
  check(true, 'the page loads and says "ready"');
  const firstLoad = [...served.keys()].reduce((total, path) => total + statSync(join(web, path === '/' ? 'index.html' : path)).size, 0);
  check(firstLoad <= 2000000, 'before anything is run the page has loaded at most 2 MB', `${firstLoad} bytes`);

  // The widget: drag each slider's thumb with the mouse, then arrow keys to the exact place.
  const setSlider = async (selector, target) => {
    const box = await page.locator(selector).boundingBox();
    await page.mouse.move(box.x + 4, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    let value = Number(await page.inputValue(selector));
    check(value > 0, `dragging ${selector} moves it`, `value ${value}`);
    await page.focus(selector);
    while (value !== target) {
      await page.keyboard.press(value > target ? 'ArrowLeft' : 'ArrowRight');
      value = Number(await page.inputValue(selector));
    }
  };
  const drawn = () => page.evaluate(() => ({ ...document.getElementById('rotation-canvas').dataset }));
  await setSlider('#query-pos', 3);
  const turnsAt3 = (await drawn()).turns;
  await setSlider('#key-pos', 5);
  check((await text('#score-rope')) === '-6.3341', 'RoPE at (3, 5) is the chapter\'s -6.3341', await text('#score-rope'));
  await page.focus('#query-pos');
  await page.keyboard.press('ArrowRight');
  check((await drawn()).turns !== turnsAt3, 'moving the query slider turns q\'s arrows in the drawing',
    `${turnsAt3} -> ${(await drawn()).turns}`);
  await page.keyboard.press('ArrowLeft');
  const sinusoidBefore = await text('#score-sinusoid');
  const drawnBefore = await drawn();
  await page.click('#move-both');
  const drawnAfter = await drawn();
  // The angles to 0.01 degree: float32's rotation rounds each pair's arrows a little differently at each place.
  const anglesAfter = drawnAfter.angles.split(' ').map(Number), anglesBefore = drawnBefore.angles.split(' ').map(Number);
  const turnsAfter = drawnAfter.turns.split(' ').map(Number), turnsBefore = drawnBefore.turns.split(' ').map(Number);
  check(anglesAfter.length === 4 && turnsAfter.every((t, i) => Math.abs(t - turnsBefore[i]) > 1e-3) &&
    anglesAfter.every((a, i) => Math.abs(a - anglesBefore[i]) < 0.01),
    'after "+5" every pair\'s arrows have turned and the angles between them are the same',
    `turns ${drawnBefore.turns} -> ${drawnAfter.turns}; angles ${drawnBefore.angles} -> ${drawnAfter.angles}`);
  check((await text('#rotation-note')).includes('did not change in any pair'), 'and the drawing\'s note says so',
    await text('#rotation-note'));
  check((await text('#query-pos-value')) === '8' && (await text('#key-pos-value')) === '10', 'move both by +5 gives (8, 10)',
    `${await text('#query-pos-value')}, ${await text('#key-pos-value')}`);
  check((await text('#score-rope')) === '-6.3341' && (await text('#verdict-rope')) === 'unchanged',
    'after the move RoPE\'s score is unchanged, and the page says so', `${await text('#score-rope')} ${await text('#verdict-rope')}`);
  check((await text('#score-sinusoid')) !== sinusoidBefore && (await text('#verdict-sinusoid')) === 'changed',
    'the sinusoid score changes', `${sinusoidBefore} -> ${await text('#score-sinusoid')}`);
  check((await text('#verdict-alibi')) === 'unchanged', 'ALiBi\'s score depends only on the distance too');
  await page.locator('#widget').screenshot({ path: `${shots}/1-widget.png` });
  await setSlider('#query-pos', 3);
  await setSlider('#key-pos', 10);
  check((await text('#score-rope')) === '-5.9618', 'RoPE at (3, 10) is the chapter\'s -5.9618', await text('#score-rope'));

  // Training: 50 steps of lag rope seed 0, against the native program.
  await page.selectOption('#task', 'lag');
  await page.fill('#scheme', 'rope');
  await page.fill('#seed', '0');
  await page.fill('#steps', '50');
  const started = Date.now();
  await page.click('#train-button');
  await until(() => document.getElementById('result-line').textContent.startsWith('lag'), null, 300);
  await until(() => document.querySelectorAll('#attention-maps canvas').length > 0, null, 120);
  const seconds = (Date.now() - started) / 1000;
  const progress = await text('#train-progress');
  const losses = progress.match(/loss ([0-9.]+) \(at step 1: ([0-9.]+)\)/);
  check(losses && Number(losses[1]) < Number(losses[2]), 'the loss falls in 50 steps', progress);
  const line = (await text('#result-line')).split('\n')[0].trim();
  check((await text('#result-line')).includes('(after 50 steps; the chapter\'s rows below are after 2000)'),
    'the result says after how many steps, beside the chapter\'s 2000', await text('#result-line'));
  const native = execFileSync(nativeTrain, ['lag', 'rope', '0', '--steps', '50', '--threads', '1', '--quiet'],
    { env: { ...process.env, OMP_NUM_THREADS: '1' }, encoding: 'utf8' }).trim();
  console.log(`  page   (${seconds.toFixed(1)} s with its tests): ${line}`);
  console.log(`  native: ${native}`);
  const ours = accuracies(line), theirs = accuracies(native);
  const worst = Math.max(...ours.map((a, i) => Math.abs(a - theirs[i])));
  check(words(line) === words(native) && ours.length === theirs.length && worst <= 0.01,
    'the page\'s result line is the native one, each accuracy within 0.01', `largest difference ${worst.toFixed(3)}`);
  const chapter = await text('#chapter-rows');
  check(chapter.includes('lag  rope         seed 0') && chapter.includes('lag  rope         seed 1'),
    'the chapter\'s rows for lag rope are shown beside it');
  check((await page.locator('#attention-maps canvas').count()) === 2, 'an attention map for each of the 2 layers');
  await page.screenshot({ path: `${shots}/2-trained.png`, fullPage: true });

  // Context extension on that RoPE model fills its table (5 lengths x 4 columns); meanwhile no
  // new run can start (one model, one request at a time).
  await page.click('#extension-button');
  check(await page.isDisabled('#train-button'), 'Train waits while the model is being tested');
  await until(() => document.querySelectorAll('#extension-table tbody td').length === 25 &&
    [...document.querySelectorAll('#extension-table tbody td')].every((cell) => cell.textContent !== ''), null, 600);
  check(true, 'context extension fills its table: as trained, PI, NTK and YaRN at 32 to 512');
  await page.locator('#extension').screenshot({ path: `${shots}/3-extension.png` });

  // Stop: a long run stopped after a few steps.
  await page.fill('#steps', '2000');
  await page.click('#train-button');
  await until(() => /step ([3-9]|[1-9][0-9]+) of 2000/.test(document.getElementById('train-progress').textContent), null, 60);
  check((await text('#status')).startsWith('busy'), 'the status line says it is busy while it trains', await text('#status'));
  await page.click('#stop-button');
  await until(() => document.getElementById('result-line').textContent.includes('stopped after'), null, 120);
  const stopped = await text('#result-line');
  check(/stopped after [0-9]+ of 2000 steps/.test(stopped), 'Stop ends the run early and says after how many steps',
    stopped.split('\n').pop());

  // A negative seed is refused, saying what is accepted.
  await page.fill('#seed', '-1');
  await page.fill('#steps', '50');
  await page.click('#train-button');
  await until(() => document.getElementById('train-progress').textContent.startsWith('refused'), null, 30);
  check((await text('#train-progress')).includes('the seed must be a whole number from 0 to'),
    'a negative seed is refused, saying what is accepted', await text('#train-progress'));
  await page.fill('#seed', '0');

  // A bad scheme is refused with the engine's reason.
  await page.fill('#scheme', 'rope:-1');
  await page.click('#train-button');
  await until(() => document.getElementById('train-progress').textContent.startsWith('refused'), null, 30);
  check((await text('#train-progress')).includes('rope'), 'a bad scheme is refused with the engine\'s reason',
    await text('#train-progress'));
  check(!(await page.isDisabled('#train-button')), 'and the Train button works again');

  // One lesson in the page.
  await page.selectOption('#lesson-select', '05_rope');
  await page.click('#lesson-run');
  await until(() => document.getElementById('lesson-output').textContent.includes('ended with exit code'), null, 120);
  const lesson = await text('#lesson-output');
  check(lesson.includes('lesson 05: ok') && lesson.includes('ended with exit code 0') && !lesson.includes('[FAILED]'),
    'lesson 05 runs in the page to "lesson 05: ok", exit code 0', lesson.split('\n').slice(-4).join(' | '));
  check((await page.getAttribute('#lesson-source', 'href')) === 'source/lessons/05_rope.cpp', 'with a link to its source');
  await page.locator('#lessons').screenshot({ path: `${shots}/4-lesson.png` });

  // The experiment's section: 14 runs (seed 0) at 20 steps, a reload midway, every line held to
  // the native program's.
  await page.evaluate(() => localStorage.clear());
  await page.fill('#experiment-steps', '20');
  await page.fill('#experiment-seeds', '0');
  const experimentStarted = Date.now();
  await page.click('#experiment-run');
  const lineCount = () => page.evaluate(() => document.getElementById('experiment-lines').textContent.split('\n').filter(Boolean).length);
  await until(() => document.getElementById('experiment-lines').textContent.split('\n').filter(Boolean).length >= 3, null, 300);
  await page.reload();
  await until(() => !document.getElementById('status').textContent.includes('loading the engine'), null, 60);
  const keptAtReload = await lineCount();
  check(keptAtReload >= 3, 'after a reload the finished runs\' lines are still there', `${keptAtReload} lines`);
  await until(() => document.getElementById('experiment-progress').textContent.startsWith('[14/14] done'), null, 600);
  const startedAfterReload = Number(await page.getAttribute('#experiment-progress', 'data-started'));
  check(startedAfterReload > 0 && startedAfterReload <= 14 - keptAtReload,
    'the experiment went on after the reload by itself, running only what had not finished',
    `${keptAtReload} kept, ${startedAfterReload} started after the reload`);
  const pageLines = (await text('#experiment-lines')).split('\n').filter(Boolean);
  const nativeLines = [];
  for (const task of ['lag', 'seen'])
    for (const scheme of ['none', 'sinusoid', 'learned', 'rope', 'rope:1000000', 'alibi:0.5', 'alibi:0.0625'])
      nativeLines.push(execFileSync(nativeTrain, [task, scheme, '0', '--steps', '20', '--threads', '1', '--quiet'],
        { env: { ...process.env, OMP_NUM_THREADS: '1' }, encoding: 'utf8' }).trim());
  const differing = nativeLines.filter((native, i) => pageLines[i] !== native);
  console.log(`  the experiment in the page: 14 runs of 20 steps in ${((Date.now() - experimentStarted) / 1000).toFixed(0)} s with a reload`);
  check(pageLines.length === 14 && differing.length === 0,
    'each of the 14 lines is the native program\'s to the character, in results/table.txt\'s order',
    `${pageLines.length} lines; first differing native line: ${differing[0] || ''}`);
  check((await page.locator('#experiment-summary td').count()) === 2 * 7 * 6 &&
    (await text('#experiment-progress')).includes('figures outside the chapter\'s allowance'),
    'the table beside the chapter\'s is drawn, with the count of figures outside the allowance', await text('#experiment-progress'));
  check((await page.locator('#experiment-plots canvas').count()) === 2, 'accuracy against length is drawn for both tasks');
  await page.locator('#experiment').screenshot({ path: `${shots}/6-experiment.png` });

  // Stop in a long experiment: every worker ends.
  await page.click('#experiment-forget');
  await page.fill('#experiment-steps', '2000');
  await page.fill('#experiment-seeds', '0,1');
  await page.click('#experiment-run');
  await until(() => /at step [1-9]/.test(document.getElementById('experiment-progress').textContent), null, 120);
  const experimentWorkers = () => page.workers().filter((worker) => worker.url().includes('experiment_worker')).length;
  check(experimentWorkers() >= 1, 'a 2000-step experiment runs in workers', `${experimentWorkers()} workers`);
  await page.click('#experiment-stop');
  for (let waited = 0; waited < 20 && experimentWorkers() > 0; ++waited) await page.waitForTimeout(500);
  check(experimentWorkers() === 0 && (await text('#experiment-progress')).includes('stopped'),
    'Stop ends every one of its workers and says so', `${experimentWorkers()} left; ${await text('#experiment-progress')}`);

  // A phone-sized screen.
  await page.setViewportSize({ width: 390, height: 844 });
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(sideways <= 0, 'on a 390-pixel-wide screen the page does not scroll sideways', `${sideways} pixels too wide`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${shots}/5-phone.png` });
  await page.locator('#widget').screenshot({ path: `${shots}/7-widget-phone.png` });

  // What the browser keeps for the experiment is checked when read: garbage, fields of the wrong type
  // and a line kept under another run's key are left out and said once, and the section stays usable.
  const keptKey = 'whereami.experiment.v1';
  const otherRun = 'lag  none         seed 1: length 32 / 64 / 128: 0.100 / 0.100 / 0.100; at 128, positions past 32: 0.100';
  for (const [what, value] of [['text that is not JSON', '{"lines": '],
                               ['fields of the wrong type', JSON.stringify({ lines: 'many', active: { steps: 'x', seeds: 3 } })],
                               ['a line under another run\'s key', JSON.stringify({ lines: { 'lag rope 0 --steps 20': otherRun }, active: null })]]) {
    await page.evaluate(([key, text]) => localStorage.setItem(key, text), [keptKey, value]);
    await page.reload();
    await until(() => document.getElementById('status').textContent === 'ready', null, 60);
    await page.fill('#experiment-steps', '20');
    await page.fill('#experiment-seeds', '0');
    const shown = { note: await text('#experiment-storage'), lines: await text('#experiment-lines'),
                    run: !(await page.isDisabled('#experiment-run')), kept: await page.evaluate((key) => localStorage.getItem(key), keptKey) };
    check(/not used/.test(shown.note) && !shown.lines.includes('lag  none') && shown.run && !String(shown.kept).includes('many') &&
          !String(shown.kept).includes('lag  none'),
      `kept ${what} is left out, said once, and removed; the experiment's section stays usable`, JSON.stringify(shown));
  }
  await page.click('#experiment-forget');
  check(/forgotten/.test(await text('#experiment-progress')), 'and Forget works after it');

  check(errors.length === 0, 'no error in the page or its console', errors.join('; '));
  check(foreign.length === 0, 'everything the page loaded came from its own folder', foreign.join(' '));
  // What the server sent for each file, once (the workers load the engine again; a host's cache
  // would serve that from the first load).
  const once = new Map();
  for (const path of served.keys()) once.set(path, statSync(join(web, path === '/' ? 'index.html' : path)).size);
  const bytes = [...once.values()].reduce((a, b) => a + b, 0);
  console.log(`  the page loaded ${once.size} files, ${bytes} bytes in all: ` +
    [...once.entries()].map(([path, size]) => `${path} ${size}`).join(', '));
  check(bytes <= 5000000, 'and at most 5 MB of them', `${bytes} bytes`);
} catch (error) {
  check(false, 'the page test ran to its end', error.message.split('\n')[0]);
} finally {
  await browser.close();
  await stop();
}
console.log(`test-web: page ${failures() ? `${failures()} check(s) FAILED` : 'ok'} (screenshots in ${shots}/)`);
process.exit(failures() ? 1 : 0);
