// make bench-web: a training step of the experiment's model (lag, rope, B=64, T=32, D=64, 2 layers:
// bench/bench_step.cpp's) in headless Chromium, through the page's own engine (web/page_api.cpp's
// Training, in the page), against the native program's single-thread fast step, timed alike: each
// side's ms per step over STEPS steps after a warm-up (the browser's until its step time is
// steady), in alternating rounds (native, browser, native, ...), so that both see the same machine;
// then each side's median over the rounds with the spread of its rounds, and the ratio
// browser / native.
//   node bench/web_bench.mjs WEB_BUILD BENCH_STEP [--steps S] [--rounds R] [--chromium PATH]
// Leaves out the page's drawing and workers (a step costs the same in a worker), and threads (the
// page has one; so does the native side here).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { serve } from '../platform/web_serve.mjs';

// playwright-core is installed with the browser tests (tests/web/package.json).
const { chromium } = createRequire(new URL('../tests/web/package.json', import.meta.url))('playwright-core');

const usage = 'usage: node bench/web_bench.mjs WEB_BUILD BENCH_STEP [--steps S] [--rounds R] [--chromium PATH]';
const [web, benchStep, ...rest] = process.argv.slice(2);
const options = { steps: 20, rounds: 5, chromium: '/usr/bin/chromium' };
for (let i = 0; i < rest.length; i += 2) {
  const name = rest[i].replace(/^--/, ''), value = rest[i + 1];
  if (!(name in options) || value === undefined || (name !== 'chromium' && !/^[1-9][0-9]{0,3}$/.test(value))) {
    console.error(`${usage}\n  (S and R: whole numbers from 1 to 9999; got '${rest[i]} ${value ?? ''}')`);
    process.exit(2);
  }
  options[name] = name === 'chromium' ? value : Number(value);
}
if (!web || !benchStep) {
  console.error(usage);
  process.exit(2);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b), middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const spread = (values) => `${Math.min(...values).toFixed(2)}..${Math.max(...values).toFixed(2)}`;

function nativeRound() {
  const out = execFileSync(benchStep, ['--threads', '1', '--kernels', 'fast', '--steps', String(options.steps), '--repeats', '1'],
    { env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' }, encoding: 'utf8' });
  const found = out.match(/fast kernels: median of .* steps: ([0-9.]+) ms per step/);
  if (!found) throw new Error(`bench_step printed no step time:\n${out}`);
  return { ms: Number(found[1]), kernels: (out.match(/OpenBLAS ([A-Za-z0-9]+) kernels/) || [])[1] || '?' };
}

const { server, url } = await serve(web);
const browser = await chromium.launch({
  executablePath: options.chromium,
  args: [...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []), '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
});
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => typeof createWhereami === 'function');
  const version = await browser.version();
  // One Training for the whole bench; each round times STEPS more steps of it.
  await page.evaluate(async () => {
    const engine = await createWhereami();
    window.benchTraining = new engine.Training();
    const refused = window.benchTraining.begin('lag', 'rope', '0', '100000');
    if (refused) throw new Error(refused);
  });
  const browserRound = (steps) => page.evaluate((count) => {
    const started = performance.now();
    const answer = JSON.parse(window.benchTraining.run(count));
    if (answer.error) throw new Error(answer.error);
    return (performance.now() - started) / count;
  }, steps);
  // The warm-up: Chromium first runs WebAssembly from its quick baseline compiler and compiles the
  // hot functions again, optimised, in the background (dynamic tiering); until that is done a step
  // took 1.5x as long (94 against 61 ms on a 2-core machine, for the first two rounds of 20 steps
  // after a warm-up of 3; with 25, two chunks of 5 steps already agreed before the optimised code
  // came). Steps in chunks of 10, at least 60, until two chunks in a row are within 5% of each
  // other (at most 300 steps).
  let warmup = 0, last = Infinity;
  for (;;) {
    const ms = await browserRound(10);
    warmup += 10;
    if ((warmup >= 60 && Math.abs(ms - last) <= 0.05 * Math.min(ms, last)) || warmup >= 300) break;
    last = ms;
  }

  console.log(`bench-web: lag rope B=64 T=32 D=64, 2 layers; the browser warmed up by ${warmup} steps; ${options.steps} steps a round, ${options.rounds} rounds; ` +
    `Chromium ${version} against ${benchStep} (one thread, fast kernels)`);
  const native = [], inBrowser = [];
  let kernels = '?';
  for (let round = 1; round <= options.rounds; ++round) {
    const ours = nativeRound();
    kernels = ours.kernels;
    native.push(ours.ms);
    inBrowser.push(await browserRound(options.steps));
    console.log(`bench-web: round ${round}: native ${ours.ms.toFixed(2)} ms, browser ${inBrowser.at(-1).toFixed(2)} ms per step, ` +
      `ratio ${(inBrowser.at(-1) / ours.ms).toFixed(2)}`);
  }
  const ratios = inBrowser.map((b, i) => b / native[i]);
  console.log(`bench-web: native (OpenBLAS ${kernels} kernels) ${median(native).toFixed(2)} ms per step (rounds ${spread(native)})`);
  console.log(`bench-web: browser (WebAssembly SIMD, the portable sgemm) ${median(inBrowser).toFixed(2)} ms per step (rounds ${spread(inBrowser)})`);
  console.log(`bench-web: browser / native ${(median(inBrowser) / median(native)).toFixed(2)}x (rounds ${spread(ratios)})`);
} finally {
  await browser.close();
  server.close();
}
