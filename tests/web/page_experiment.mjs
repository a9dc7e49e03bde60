// The chapter's whole experiment in the page, in headless Chromium, as a learner runs it: the
// section's fields set, Run pressed, and its lines and verdict written out when it says "done".
// With a native results/table.txt beside it, says how many of the lines are equal to the character
// and, figure by figure, how many of the 70 (or 35 for one seed) figures differ and by how much.
//   node tests/web/page_experiment.mjs WEB_DIST OUT_FOLDER [STEPS] [SEEDS] [NATIVE_TABLE] [CHROMIUM]
// Writes OUT_FOLDER/table.txt (the page's lines), summary.md and experiment.png (the section).
// Leaves out the short checks make test-web makes (tests/web/page_test.mjs).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { launchBrowser } from './browser.mjs';
import { serve } from '../../platform/web_serve.mjs';

const [web, out, steps = '2000', seeds = '0,1', nativeTable = '', browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!web || !out) {
  console.error('usage: node tests/web/page_experiment.mjs WEB_DIST OUT_FOLDER [STEPS] [SEEDS] [NATIVE_TABLE] [CHROMIUM]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const { server, url } = await serve(web);
const browser = await launchBrowser(browserPath);
let status = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'ready', null, { timeout: 60000 });
  await page.evaluate(() => localStorage.clear());
  await page.fill('#experiment-steps', steps);
  await page.fill('#experiment-seeds', seeds);
  const started = Date.now();
  await page.click('#experiment-run');
  let last = '';
  for (;;) {
    const progress = await page.textContent('#experiment-progress');
    if (/^\[([0-9]+)\/\1\] done/.test(progress) || /failed/.test(progress)) break;
    const done = progress.match(/^\[[0-9]+\/[0-9]+\]/);
    if (done && done[0] !== last) {
      last = done[0];
      console.log(`page_experiment: ${progress} (${((Date.now() - started) / 60000).toFixed(1)} min)`);
    }
    await page.waitForTimeout(5000);
  }
  const minutes = (Date.now() - started) / 60000;
  const progress = await page.textContent('#experiment-progress');
  const lines = (await page.textContent('#experiment-lines')).split('\n').filter(Boolean);
  writeFileSync(`${out}/table.txt`, lines.join('\n') + '\n');
  writeFileSync(`${out}/summary.md`, await page.evaluate(() => document.querySelector('#experiment-summary pre')?.textContent || ''));
  await page.locator('#experiment').screenshot({ path: `${out}/experiment.png` });
  console.log(`page_experiment: ${lines.length} runs of ${steps} steps, seeds ${seeds}, in ${minutes.toFixed(1)} min ` +
    `with ${cores} workers at once (navigator.hardwareConcurrency): ${progress}`);
  if (/failed/.test(progress)) status = 1;
  if (nativeTable && existsSync(nativeTable)) {
    const native = readFileSync(nativeTable, 'utf8').split('\n').filter(Boolean);
    const numbers = (line) => (line.match(/[0-9]\.[0-9]{3}/g) || []).map(Number);
    let equalLines = 0, figures = 0, differing = 0, largest = 0;
    native.forEach((line, i) => {
      if (lines[i] === line) ++equalLines;
      const a = numbers(line), b = numbers(lines[i] || '');
      a.forEach((x, j) => {
        ++figures;
        const d = Math.abs(x - (b[j] ?? NaN));
        if (!(d === 0)) ++differing;
        if (d > largest || Number.isNaN(d)) largest = Number.isNaN(d) ? Infinity : d;
      });
    });
    console.log(`page_experiment: against ${nativeTable}: ${equalLines} of ${native.length} lines equal to the character; ` +
      `${differing} of ${figures} figures differ, the largest difference ${largest.toFixed(3)}`);
  }
} catch (error) {
  console.error(`page_experiment: ${error.message.split('\n')[0]}`);
  status = 1;
} finally {
  await browser.close();
  server.close();
}
process.exit(status);
