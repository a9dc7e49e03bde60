// The page's section "The chapter's experiment": every run of make experiment (2 tasks x 7 schemes x
// the seeds), each in a Web Worker of its own (web/experiment_worker.js) on one thread, as many at
// once as the machine has cores (at most 8); a progress line with the time left, and Stop. Each
// finished run's line is kept in the browser's storage under its settings (task, scheme, seed,
// steps), so a reload or a closed tab resumes where it was and a run is redone only if its settings
// differ. At the end the runs are judged as make experiment judges them (the engine's
// experiment_summary, experiment/summary.hpp): the table beside the chapter's, the figures outside
// the allowance marked, and accuracy against length drawn as make plots draws it.
// Leaves out every figure's computation (the engine's) and the other sections (web/page.js).
'use strict';

const experiment = {
  engine: null,     // the page's engine (experiment_runs, experiment_summary)
  plan: null,       // {tasks, schemes, lengths, steps}: the experiment's runs, from the engine
  workers: [],      // the workers running now
  settings: null,   // {steps, seeds} of the experiment shown
  started: 0,       // runs started since the page loaded (for the resume check)
  startedAt: 0,
  finishedHere: 0,  // runs finished since Run was pressed
  progress: {},     // worker index -> {run, step, steps}
  storageNote: '',  // what was wrong with the browser's storage, said once
};
const storageKey = 'whereami.experiment.v1';

// What the browser keeps: {lines: {"lag rope 0 --steps 2000": "lag  rope ..."}, active: {steps, seeds} or null}.
// Checked when read, since anything can be in the browser's storage (another version of the page, a
// hand edit): a line is taken only under a key of the runs' form, as one line of train_position's
// result format for the same task, scheme and seed; the settings only as the fields take them.
// Whatever else is there is left out, and said once (experiment.storageNote).
const keyForm = /^(lag|seen) ([a-z0-9:.-]{1,40}) ([0-9]{1,9}) --steps ([0-9]{1,6})$/;
const lineForm = /^(lag|seen) +([a-z0-9:.-]{1,40}) +seed ([0-9]{1,9}): length [0-9]+ \/ [^\n]*[0-9]\.[0-9]{3}[^\n]*$/;

function checkedLines(lines) {
  const good = {};
  let bad = 0;
  if (lines === null || typeof lines !== 'object' || Array.isArray(lines)) return { good, bad: lines === undefined ? 0 : 1 };
  for (const [key, line] of Object.entries(lines)) {
    const k = keyForm.exec(key), l = typeof line === 'string' ? lineForm.exec(line) : null;
    if (k && l && k[1] === l[1] && k[2] === l[2] && k[3] === l[3] && Number(k[4]) >= 1 && Number(k[4]) <= 100000) good[key] = line;
    else ++bad;
  }
  return { good, bad };
}

function checkedActive(active) {
  if (active === null || active === undefined) return null;
  const { steps, seeds } = active;
  const whole = (x, most) => Number.isInteger(x) && x >= 0 && x <= most;
  if (!whole(steps, 100000) || steps < 1 || !Array.isArray(seeds) || seeds.length < 1 || seeds.length > 100 ||
      !seeds.every((seed) => whole(seed, 999999999)) || new Set(seeds).size !== seeds.length) return undefined;
  return { steps, seeds: [...seeds] };
}

function stored() {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(storageKey) || '{}');
  } catch {
    kept = undefined;
  }
  if (kept === null || typeof kept !== 'object' || Array.isArray(kept)) {
    experiment.storageNote = 'what this browser kept for the experiment could not be read, so it is not used';
    return { lines: {}, active: null };
  }
  const { good, bad } = checkedLines(kept.lines);
  const active = checkedActive(kept.active);
  if (bad || active === undefined)
    experiment.storageNote = `${bad ? `${bad} kept line${bad === 1 ? '' : 's'}` : ''}${bad && active === undefined ? ' and ' : ''}` +
      `${active === undefined ? 'the kept settings' : ''} did not have the form the page keeps, so ${bad + (active === undefined) === 1 ? 'it is' : 'they are'} not used`;
  return { lines: good, active: active || null };
}
function store(change) {
  const kept = { ...stored(), ...change };
  try {
    localStorage.setItem(storageKey, JSON.stringify(kept));
  } catch {
    // A browser that keeps nothing (private mode, storage full): the experiment still runs.
    experiment.storageNote = 'this browser\'s storage is full or off: finished runs are not kept past this page';
  }
}
// What was wrong with the browser's storage, said once, beside the section's settings.
function sayStorage() {
  if (!experiment.storageNote) return;
  $('experiment-storage').textContent = `note: ${experiment.storageNote}`;
  experiment.storageNote = '';
}
const runKey = (run, steps) => `${run.task} ${run.scheme} ${run.seed} --steps ${steps}`;

// The fields as the experiment takes them, or an error naming what is accepted.
function readSettings() {
  const stepsText = $('experiment-steps').value.trim();
  const seedsText = $('experiment-seeds').value.replace(/\s+/g, '');
  if (!/^[0-9]{1,6}$/.test(stepsText) || Number(stepsText) < 1 || Number(stepsText) > 100000)
    throw new Error(`the steps must be a whole number from 1 to 100000, got '${stepsText}'`);
  if (!/^[0-9]{1,9}(,[0-9]{1,9})*$/.test(seedsText))
    throw new Error(`the seeds must be whole numbers from 0 to 999999999 separated by commas, as 0,1; got '${seedsText}'`);
  const seeds = seedsText.split(',').map(Number);
  if (new Set(seeds).size !== seeds.length) throw new Error(`a seed is given twice in '${seedsText}'`);
  return { steps: Number(stepsText), seeds };
}

// Every run, in results/table.txt's order: per task, per scheme, per seed.
function runsOf(settings) {
  const runs = [];
  for (const task of experiment.plan.tasks)
    for (const scheme of experiment.plan.schemes)
      for (const seed of settings.seeds) runs.push({ task, scheme, seed });
  return runs;
}

function finishedLines(settings) {
  const lines = stored().lines;
  return runsOf(settings).map((run) => lines[runKey(run, settings.steps)]).filter(Boolean);
}

function showLines(settings) {
  const lines = finishedLines(settings);
  $('experiment-lines').textContent = lines.join('\n');
  return lines;
}

const minutes = (seconds) => (seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`);

function showProgress(done, total, last) {
  // The time left from the runs finished here, or before the first from the steps taken so far.
  const elapsed = (performance.now() - experiment.startedAt) / 1000;
  const left = total - done;
  let estimate = '';
  if (experiment.finishedHere > 0) {
    estimate = `, about ${minutes((elapsed / experiment.finishedHere) * left)} left`;
  } else {
    const fractions = Object.values(experiment.progress).map((p) => p.step / p.steps);
    const share = fractions.reduce((a, b) => a + b, 0);
    if (share > 0) estimate = `, about ${minutes((elapsed / share) * left)} left`;
  }
  const running = Object.values(experiment.progress).map((p) => `${p.run.task} ${p.run.scheme} seed ${p.run.seed} at step ${p.step}`);
  $('experiment-progress').textContent = `[${done}/${total}] ${last ? `${last}; ` : ''}` +
    (running.length ? `running ${running.join(', ')}` : '') + estimate;
  $('experiment-progress').dataset.started = String(experiment.started);
}

function stopWorkers() {
  for (const worker of experiment.workers) worker.terminate();
  experiment.workers = [];
  experiment.progress = {};
}

function experimentRunning(running) {
  $('experiment-run').disabled = running;
  $('experiment-stop').disabled = !running;
  $('experiment-steps').disabled = running;
  $('experiment-seeds').disabled = running;
  setBusy('experiment', running ? '' : null);
}

function runExperiment(settings) {
  stopWorkers();
  experiment.settings = settings;
  $('experiment-error').textContent = '';
  $('experiment-summary').textContent = '';
  $('experiment-plots').textContent = '';
  const runs = runsOf(settings);
  const queue = runs.filter((run) => !stored().lines[runKey(run, settings.steps)]);
  const kept = runs.length - queue.length;
  showLines(settings);
  if (queue.length === 0) {
    judge(settings);
    return;
  }
  store({ active: settings });
  experimentRunning(true);
  experiment.startedAt = performance.now();
  experiment.finishedHere = 0;
  let done = kept;
  showProgress(done, runs.length, kept ? `${kept} kept from before` : 'starting');
  const cores = Math.max(1, Math.min(8, navigator.hardwareConcurrency || 2, queue.length));
  const failed = (text) => {
    stopWorkers();
    store({ active: null });
    experimentRunning(false);
    $('experiment-progress').textContent = `[${done}/${runs.length}] failed: ${text} (the finished runs are kept; Run continues)`;
  };
  const next = (worker, index) => {
    const run = queue.shift();
    if (!run) {
      worker.terminate();
      experiment.workers = experiment.workers.filter((w) => w !== worker);
      delete experiment.progress[index];
      if (experiment.workers.length === 0) {
        store({ active: null });
        experimentRunning(false);
        judge(settings);
      }
      return;
    }
    experiment.progress[index] = { run, step: 0, steps: settings.steps };
    ++experiment.started;
    worker.postMessage({ type: 'run', task: run.task, scheme: run.scheme, seed: run.seed, steps: settings.steps });
  };
  for (let i = 0; i < cores; ++i) {
    const worker = new Worker('experiment_worker.js');
    experiment.workers.push(worker);
    worker.onerror = (error) => failed(`a worker failed: ${error.message}`);
    worker.onmessage = (event) => {
      const message = event.data;
      const current = experiment.progress[i];
      if (message.type === 'ready') next(worker, i);
      else if (message.type === 'progress') {
        current.step = message.step;
        showProgress(done, runs.length, '');
      } else if (message.type === 'result') {
        store({ lines: { ...stored().lines, [runKey(current.run, settings.steps)]: message.line } });
        sayStorage();
        ++done;
        ++experiment.finishedHere;
        showLines(settings);
        const name = `${current.run.task} ${current.run.scheme} seed ${current.run.seed}`;
        delete experiment.progress[i];
        showProgress(done, runs.length, `${name} done`);
        next(worker, i);
      } else if (message.type === 'error') {
        failed(`${current.run.task} ${current.run.scheme} seed ${current.run.seed}: ${message.text}`);
      }
    };
  }
}

// The finished experiment judged by the engine: the table beside the chapter's, and the picture.
function judge(settings) {
  const lines = showLines(settings);
  const answer = JSON.parse(experiment.engine.experiment_summary(lines.join('\n'), settings.seeds.join(','), settings.steps));
  if (answer.error) {
    $('experiment-error').textContent = `the runs could not be judged: ${answer.error}`;
    return;
  }
  const total = runsOf(settings).length;
  $('experiment-progress').textContent = `[${total}/${total}] done: ${answer.outside} of ${answer.judged} figures outside ` +
    `the chapter's allowance` + (settings.steps === experiment.plan.steps ? '' :
    ` (at ${settings.steps} steps; the chapter trained ${experiment.plan.steps}, so expect many)`);
  drawSummaryTable(answer, settings);
  drawAccuracyPlots(answer);
}

const three = (x) => x.toFixed(3);

function drawSummaryTable(answer, settings) {
  const holder = $('experiment-summary');
  holder.textContent = '';
  const note = document.createElement('p');
  note.textContent = `Each cell: our mean over seeds ${settings.seeds.join(', ')} / the chapter's mean over its two seeds. ` +
    'Marked ! and red: outside the allowance (0.05; 0.08 for seen at 64, 128, past 32 and scaled), as results/summary.md marks it.';
  holder.append(note);
  for (const task of experiment.plan.tasks) {
    const table = document.createElement('table');
    table.className = 'scores numbers';
    table.innerHTML = `<caption>${task}</caption><thead><tr><th>scheme</th>` +
      answer.figure_names.map((name) => `<th>${name}</th>`).join('') + '</tr></thead>';
    const body = document.createElement('tbody');
    for (const scheme of experiment.plan.schemes) {
      const row = document.createElement('tr');
      row.innerHTML = `<td>${scheme}</td>`;
      for (const cell of answer.cells.filter((c) => c.task === task && c.scheme === scheme)) {
        const td = document.createElement('td');
        td.textContent = `${three(cell.mean)} / ${three(cell.chapter)}${cell.outside ? ' !' : ''}`;
        if (cell.outside) td.className = 'outside';
        td.title = `ours ${three(cell.mean)} (seeds ${three(cell.low)}..${three(cell.high)}), the chapter ${three(cell.chapter)}`;
        row.append(td);
      }
      body.append(row);
    }
    table.append(body);
    holder.append(table);
  }
  const baseline = document.createElement('p');
  baseline.textContent = 'Always answering "no" on seen, on the same test sequences: ' +
    answer.figure_names.slice(0, 4).map((name, i) => `${name}: ${three(answer.always_no[i])}`).join('; ') +
    ' (the chapter: 0.85, 0.73, 0.55, 0.45).';
  holder.append(baseline);
  const details = document.createElement('details');
  details.innerHTML = '<summary>results/summary.md, as make experiment writes it</summary>';
  const pre = document.createElement('pre');
  pre.className = 'output';
  pre.textContent = answer.markdown;
  details.append(pre);
  holder.append(details);
}

// Accuracy against test length, one line per scheme (the seed mean), one picture per task, with
// chance (lag) or always "no" (seen) dashed, as make plots draws results/plots/experiment.svg.
const schemeColours = ['#777777', '#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#ff7f0e', '#8c564b'];
function drawAccuracyPlots(answer) {
  const holder = $('experiment-plots');
  holder.textContent = '';
  const lengths = experiment.plan.lengths;
  for (const task of experiment.plan.tasks) {
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${task}: accuracy against test length for each scheme`);
    holder.append(canvas);
    const shown = Math.min(holder.clientWidth || 480, 480), height = 260, scale = window.devicePixelRatio || 1;
    canvas.style.width = `${shown}px`;
    canvas.width = Math.round(shown * scale);
    canvas.height = Math.round(height * scale);
    const c = canvas.getContext('2d');
    c.setTransform(scale, 0, 0, scale, 0, 0);
    c.font = '11px system-ui, sans-serif';
    const left = 34, right = 104, top = 18, bottom = 28;
    const x = (i) => left + ((shown - left - right) * i) / (lengths.length - 1);
    const y = (a) => top + (height - top - bottom) * (1 - a);
    c.fillStyle = '#1b1b1b';
    c.fillText(`${task}: accuracy by test length (trained at 32)`, left, 12);
    c.strokeStyle = '#bbb';
    for (const a of [0, 0.25, 0.5, 0.75, 1]) {
      c.beginPath();
      c.moveTo(left, y(a));
      c.lineTo(shown - right, y(a));
      c.stroke();
      c.fillText(a.toFixed(2), 2, y(a) + 4);
    }
    lengths.forEach((L, i) => c.fillText(String(L), x(i) - 8, height - 10));
    const series = experiment.plan.schemes.map((scheme) => ({
      name: scheme,
      values: [0, 1, 2].map((f) => answer.cells.find((cell) => cell.task === task && cell.scheme === scheme && cell.figure === f).mean),
    }));
    series.push({ name: task === 'seen' ? 'always no' : 'chance', dashed: true,
      values: task === 'seen' ? answer.always_no.slice(0, 3) : lengths.map(() => 1 / 16) });
    series.forEach((s, k) => {
      c.strokeStyle = s.dashed ? '#000' : schemeColours[k];
      c.setLineDash(s.dashed ? [4, 4] : []);
      c.lineWidth = 2;
      c.beginPath();
      s.values.forEach((a, i) => (i ? c.lineTo(x(i), y(a)) : c.moveTo(x(i), y(a))));
      c.stroke();
      c.setLineDash([]);
      c.lineWidth = 1;
      c.fillStyle = c.strokeStyle;
      c.fillRect(shown - right + 8, top + 14 * k, 10, 3);
      c.fillText(s.name, shown - right + 22, top + 14 * k + 5);
    });
  }
}

function setUpExperiment(engine) {
  experiment.engine = engine;
  experiment.plan = JSON.parse(engine.experiment_runs());
  const kept = stored();
  if (experiment.storageNote) store({});  // what is kept from now on is only what was taken
  sayStorage();
  // A run the page was in when it was closed or reloaded goes on from where it was.
  if (kept.active) {
    $('experiment-steps').value = String(kept.active.steps);
    $('experiment-seeds').value = kept.active.seeds.join(',');
  }
  try {
    showLines(readSettings());
  } catch {
    // fields a learner left malformed are said when Run is pressed
  }
  $('experiment-run').disabled = false;
  $('experiment-run').addEventListener('click', () => {
    try {
      runExperiment(readSettings());
    } catch (error) {
      $('experiment-error').textContent = `refused: ${error.message}`;
    }
  });
  $('experiment-stop').addEventListener('click', () => {
    stopWorkers();
    store({ active: null });
    experimentRunning(false);
    const settings = experiment.settings;
    const done = finishedLines(settings).length, total = runsOf(settings).length;
    $('experiment-progress').textContent = `[${done}/${total}] stopped: the ${done} finished runs are kept; Run continues from there`;
  });
  $('experiment-forget').addEventListener('click', () => {
    if (experiment.workers.length) return;
    store({ lines: {}, active: null });
    $('experiment-lines').textContent = '';
    $('experiment-summary').textContent = '';
    $('experiment-plots').textContent = '';
    $('experiment-progress').textContent = 'the kept runs are forgotten';
  });
  if (kept.active) runExperiment(kept.active);
}
