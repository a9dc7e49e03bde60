// The page's own script: the widget (engine calls in the page, each a few microseconds; its drawing
// is web/rotation.js), the experiment's section (web/experiment.js), the training and context extension (web/training_worker.js), the lessons (web/lesson_worker.js, a fresh
// worker per run), and the drawings (loss curve, attention maps) on canvases.
// Leaves out every number's computation: each comes from the engine (web/page_api.cpp).
'use strict';

const $ = (id) => document.getElementById(id);
const busy = new Set();  // what the page is doing now, said in the status line

function showStatus() {
  const status = $('status');
  if (status.classList.contains('failed')) return;
  status.className = busy.size ? 'busy' : '';
  status.textContent = busy.size ? `busy: ${[...busy].join('; ')}` : 'ready';
}
function setBusy(what, text) {
  for (const entry of [...busy]) if (entry.startsWith(what)) busy.delete(entry);
  if (text != null) busy.add(`${what}${text}`);
  showStatus();
}
function fail(text) {
  const status = $('status');
  status.className = 'failed';
  status.textContent = text;
}

const format = (x) => (x >= 0 ? '+' : '') + x.toFixed(4);

// ---- 1. The widget ----
const widget = { engine: null, before: null, drawn: null };

function scoresAt(m, n) {
  const answer = JSON.parse(widget.engine.position_scores(m, n, Number($('alibi-slope').value)));
  if (answer.error) throw new Error(answer.error);
  return answer;
}

function showScores(now, before) {
  $('query-pos-value').textContent = now.m;
  $('key-pos-value').textContent = now.n;
  $('distance').textContent = String(now.distance).replace('-', '\u2212');
  for (const name of ['rope', 'sinusoid', 'alibi', 'dot']) {
    $(`score-${name}`).textContent = format(now[name]);
    $(`before-${name}`).textContent = before ? format(before[name]) : '';
    const verdict = $(`verdict-${name}`);
    if (!before) verdict.textContent = '';
    else if (format(before[name]) === format(now[name])) {
      verdict.textContent = 'unchanged';
      verdict.className = 'same';
    } else {
      verdict.textContent = 'changed';
      verdict.className = 'moved';
    }
  }
  const moveOk = now.m + 5 < now.positions && now.n + 5 < now.positions;
  $('move-both').disabled = !moveOk;
  $('move-both').title = moveOk ? '' : `both positions must stay below ${now.positions}`;
}

// `before`: the scores and the drawing's angles before "Move both by +5", when that is the change.
function updateWidget(before) {
  const now = scoresAt(Number($('query-pos').value), Number($('key-pos').value));
  widget.before = before || null;
  showScores(now, widget.before);
  widget.drawn = drawRotation(widget.engine, now, widget.before && widget.before.drawn);
}

function setUpWidget(engine) {
  widget.engine = engine;
  $('query-pos').addEventListener('input', () => updateWidget());
  $('key-pos').addEventListener('input', () => updateWidget());
  $('alibi-slope').addEventListener('change', () => updateWidget());
  window.addEventListener('resize', () => updateWidget(widget.before));
  $('move-both').addEventListener('click', () => {
    const m = Number($('query-pos').value), n = Number($('key-pos').value);
    const before = { ...scoresAt(m, n), drawn: widget.drawn };
    $('query-pos').value = m + 5;
    $('key-pos').value = n + 5;
    updateWidget(before);
  });
  updateWidget();
}

// ---- 2. Training, 3. attention maps, 4. context extension ----
// The current request's id: the worker's answers to an earlier one (a run replaced, an extension
// test of an older model) are dropped.
const run = { worker: null, id: 0, losses: [], steps: 0, scheme: '', task: '', extensionRows: {}, extending: false };

function drawLoss() {
  const canvas = $('loss-canvas');
  // Drawn at the size it is shown (and the screen's pixel density), so its labels stay readable
  // on a phone; the canvas keeps its 640 x 220 proportions.
  const scale = window.devicePixelRatio || 1, shown = canvas.clientWidth || 640;
  canvas.width = Math.round(shown * scale);
  canvas.height = Math.round(shown * 220 / 640 * scale);
  const context = canvas.getContext('2d');
  context.setTransform(scale, 0, 0, scale, 0, 0);
  const width = shown, height = shown * 220 / 640, left = 48, bottom = 24, top = 10, right = 10;
  context.clearRect(0, 0, width, height);
  context.fillStyle = '#1b1b1b';
  context.font = '12px system-ui, sans-serif';
  if (run.losses.length === 0) return;
  const most = Math.max(...run.losses.filter(Number.isFinite));
  const x = (step) => left + ((width - left - right) * step) / Math.max(1, run.steps);
  const y = (loss) => top + (height - top - bottom) * (1 - loss / most);
  context.strokeStyle = '#999';
  context.beginPath();
  context.moveTo(left, top);
  context.lineTo(left, height - bottom);
  context.lineTo(width - right, height - bottom);
  context.stroke();
  context.fillText(most.toFixed(2), 4, top + 10);
  context.fillText('0', 30, height - bottom);
  context.fillText(`step ${run.steps}`, width - right - 70, height - 6);
  context.fillText('loss', 4, height / 2);
  context.strokeStyle = '#1f5fbf';
  context.beginPath();
  run.losses.forEach((loss, i) => (i ? context.lineTo(x(i + 1), y(loss)) : context.moveTo(x(1), y(loss))));
  context.stroke();
}

// Each layer's weights as a picture, two screen pixels a cell, with the query (row) and key (column)
// positions on its axes; under the pointer, the query, the key and the weight.
function drawAttention(attention) {
  const holder = $('attention-maps');
  holder.textContent = '';
  const T = attention.length, cell = 2, margin = 28, size = margin + T * cell;
  attention.layers.forEach((weights, layer) => {
    const figure = document.createElement('figure');
    const cells = document.createElement('canvas');  // one pixel a weight, drawn scaled below
    cells.width = T;
    cells.height = T;
    const image = cells.getContext('2d').createImageData(T, T);
    for (let m = 0; m < T; ++m) {
      // Each row (query) scaled to its largest weight: where each query looks most, at any length.
      let largest = 0;
      for (let n = 0; n <= m; ++n) largest = Math.max(largest, weights[m * T + n]);
      for (let n = 0; n < T; ++n) {
        const w = largest > 0 ? Math.min(1, Math.max(0, weights[m * T + n] / largest)) : 0;
        const shade = Math.round(255 * (1 - w));
        const at = 4 * (m * T + n);
        image.data[at] = shade;
        image.data[at + 1] = shade;
        image.data[at + 2] = Math.round(255 - 120 * w);
        image.data[at + 3] = n <= m ? 255 : 40;  // keys after the query: masked
      }
    }
    cells.getContext('2d').putImageData(image, 0, 0);
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `layer ${layer} attention weights, query by key`);
    const context = sizedCanvas(canvas, size, size);
    context.imageSmoothingEnabled = false;
    context.drawImage(cells, margin, margin, T * cell, T * cell);
    context.fillStyle = '#1b1b1b';
    context.font = '10px system-ui, sans-serif';
    context.fillText('key \u2192', margin, 10);
    context.save();
    context.translate(9, margin);
    context.rotate(Math.PI / 2);
    context.fillText('query \u2192', 0, 0);
    context.restore();
    for (let p = 0; p < T; p += 32) {
      context.fillText(String(p), margin + p * cell, margin - 4);
      context.fillText(String(p), 11, margin + p * cell + 8);
    }
    context.strokeStyle = '#d04040';
    context.setLineDash([3, 3]);
    context.beginPath();
    context.moveTo(margin, margin + attention.train_length * cell);
    context.lineTo(size, margin + attention.train_length * cell);
    context.stroke();
    const caption = document.createElement('figcaption');
    const s = attention.summary[layer];
    caption.textContent = `layer ${layer}: of the ${s.queries} queries past ${attention.train_length}, ` +
      (run.task === 'lag' ? `${s.lag_back} put their largest weight ${attention.lag} back; ` : '') +
      `mean distance attended ${s.mean_distance.toFixed(1)}`;
    const pointer = document.createElement('p');
    pointer.className = 'hint';
    pointer.textContent = 'point at the map to read a weight';
    canvas.addEventListener('mousemove', (event) => {
      const box = canvas.getBoundingClientRect();
      const n = Math.floor(((event.clientX - box.left) * size / box.width - margin) / cell);
      const m = Math.floor(((event.clientY - box.top) * size / box.height - margin) / cell);
      if (m < 0 || n < 0 || m >= T || n >= T) return;
      pointer.textContent = n > m ? `query ${m}, key ${n}: after the query, masked` :
        `query ${m}, key ${n} (distance ${m - n}): weight ${weights[m * T + n].toFixed(4)}`;
    });
    figure.append(canvas, caption, pointer);
    holder.append(figure);
  });
}

const extensionLengths = [32, 64, 128, 256, 512];
const extensionMethods = ['', 'pi', 'ntk', 'yarn'];

function drawExtensionTable() {
  const table = $('extension-table');
  const header = '<thead><tr><th>length</th>' +
    extensionMethods.map((m) => `<th>${m || 'as trained'}</th>`).join('') + '</tr></thead>';
  const rows = extensionLengths.map((L) => `<tr><td>${L}</td>` + extensionMethods.map((m) => {
    const row = run.extensionRows[`${m}:${L}`];
    return `<td>${row ? row.accuracy.toFixed(3) : ''}</td>`;
  }).join('') + '</tr>').join('');
  table.innerHTML = header + `<tbody>${rows}</tbody>`;
}

function trainingEnded() {
  $('train-button').disabled = run.extending;
  $('stop-button').disabled = true;
  setBusy('training', null);
}

function extensionEnded() {
  run.extending = false;
  $('extension-button').disabled = false;
  $('train-button').disabled = false;
  setBusy('context extension', null);
}

function onWorkerMessage(event) {
  const message = event.data;
  if (message.type !== 'ready' && message.id !== run.id) return;  // an answer to an earlier request
  if (message.type === 'ready') {
    $('train-button').disabled = false;
    setBusy('loading the training worker', null);
  } else if (message.type === 'progress') {
    run.losses.push(...message.losses);
    run.steps = message.steps;
    const last = run.losses[run.losses.length - 1];
    $('train-progress').textContent = `step ${message.step} of ${message.steps}, loss ${last.toFixed(4)} ` +
      `(at step 1: ${run.losses[0].toFixed(4)})`;
    setBusy('training', `: step ${message.step} of ${message.steps}`);
    drawLoss();
  } else if (message.type === 'status') {
    if (message.text.startsWith('testing at')) setBusy('context extension', `: ${message.text}`);
    else setBusy('training', `: ${message.text}`);
  } else if (message.type === 'result') {
    const r = message.result;
    const after = message.ended === 'stopped' ? `stopped after ${r.steps_done} of ${r.steps} steps` : `after ${r.steps_done} steps`;
    const chapterSteps = r.steps_done === r.chapter_steps ? '' : `; the chapter's rows below are after ${r.chapter_steps}`;
    const baseline = r.always_no.length ? `\nalways answering "no" scores, on the same test sequences: ` +
      ['32', '64', '128', '128 past 32'].map((name, i) => `${name}: ${r.always_no[i].toFixed(3)}`).join(', ') : '';
    $('result-line').textContent = `${r.line}\n(${after}${chapterSteps})${baseline}`;
    $('chapter-rows').textContent = r.chapter.length ? r.chapter.join('\n') :
      `(the chapter's table has no row for ${run.task} ${run.scheme})`;
  } else if (message.type === 'attention') {
    drawAttention(message.attention);
    trainingEnded();
    const rope = /^rope(:|$)/.test(run.scheme);
    $('extension-button').disabled = !rope || run.extending;
    $('extension-button').title = rope ? '' : 'train a rope model first';
  } else if (message.type === 'extension') {
    const row = message.row;
    run.extensionRows[`${row.method === 'none' ? '' : row.method}:${row.length}`] = row;
    drawExtensionTable();
  } else if (message.type === 'done') {
    if (message.request === 'extension') extensionEnded();
  } else if (message.type === 'error') {
    if (message.request === 'train') {
      trainingEnded();
      $('train-progress').textContent = `${message.refused ? 'refused' : 'failed'}: ${message.text}`;
    } else {
      extensionEnded();
      $('extension-error').textContent = `failed: ${message.text}`;
    }
  }
}

function setUpTraining() {
  run.worker = new Worker('training_worker.js');
  run.worker.onmessage = onWorkerMessage;
  run.worker.onerror = (error) => fail(`the training worker failed: ${error.message}`);
  setBusy('loading the training worker', '');
  $('train-form').addEventListener('submit', (event) => {
    event.preventDefault();
    run.losses = [];
    run.extensionRows = {};
    run.task = $('task').value;
    run.scheme = $('scheme').value.trim();
    $('result-line').textContent = '';
    $('chapter-rows').textContent = '';
    $('attention-maps').textContent = '';
    $('extension-table').textContent = '';
    $('extension-button').disabled = true;
    $('extension-error').textContent = '';
    $('train-progress').textContent = 'starting';
    $('train-button').disabled = true;
    $('stop-button').disabled = false;
    setBusy('training', ': starting');
    drawLoss();
    run.worker.postMessage({ type: 'train', id: ++run.id, task: run.task, scheme: run.scheme, seed: $('seed').value.trim(),
      steps: $('steps').value.trim() });
  });
  $('stop-button').addEventListener('click', () => {
    $('stop-button').disabled = true;
    run.worker.postMessage({ type: 'stop' });
  });
  $('extension-button').addEventListener('click', () => {
    // One request at a time: no new run while the model is being tested.
    run.extending = true;
    $('extension-button').disabled = true;
    $('train-button').disabled = true;
    $('extension-error').textContent = '';
    run.extensionRows = {};
    drawExtensionTable();
    setBusy('context extension', '');
    run.worker.postMessage({ type: 'extension', id: ++run.id, lengths: extensionLengths, methods: extensionMethods });
  });
}

// ---- 5. The lessons ----
let lessonWorker = null;
let showSolvedLessons = null;  // adds lesson 06 to the list once the exercise is solved

function setUpLessons(lessons) {
  const select = $('lesson-select');
  // Lesson 06 is the exercise's worked solution: listed once section 7 is solved (web/exercise.js).
  const solution = lessons.find((lesson) => lesson.name.startsWith('06_'));
  for (const lesson of lessons) {
    if (lesson === solution) continue;
    const option = document.createElement('option');
    option.value = lesson.name;
    option.textContent = lesson.title;
    select.append(option);
  }
  showSolvedLessons = () => {
    if (!solution || localStorage.getItem('whereami-exercise-solved') !== '1' || select.querySelector(`option[value="${solution.name}"]`)) return;
    const option = document.createElement('option');
    option.value = solution.name;
    option.textContent = `${solution.title} (the worked solution: you have solved section 7)`;
    const next = [...select.options].find((o) => o.value > solution.name);
    select.insertBefore(option, next || null);
  };
  showSolvedLessons();
  const showSource = () => ($('lesson-source').href = `source/lessons/${select.value}.cpp`);
  select.addEventListener('change', showSource);
  showSource();
  $('lesson-run').disabled = false;
  // The controls while a lesson runs: Run and the choice of lesson wait, Stop ends it.
  const lessonRunning = (running) => {
    $('lesson-run').disabled = running;
    select.disabled = running;
    $('lesson-stop').disabled = !running;
  };
  const endLesson = () => {
    lessonWorker.terminate();
    lessonWorker = null;
    lessonRunning(false);
    setBusy('lesson', null);
  };
  $('lesson-stop').addEventListener('click', () => {
    if (!lessonWorker) return;
    $('lesson-output').textContent += `\n(lesson ${select.value} stopped)\n`;
    endLesson();
  });
  $('lesson-run').addEventListener('click', () => {
    if (lessonWorker) lessonWorker.terminate();
    const output = $('lesson-output');
    output.textContent = '';
    const name = select.value;
    lessonRunning(true);
    setBusy('lesson', ` ${name}: running`);
    lessonWorker = new Worker('lesson_worker.js');
    lessonWorker.onmessage = (event) => {
      const message = event.data;
      if (message.type === 'line') output.textContent += message.text + '\n';
      else if (message.type === 'exit') {
        output.textContent += `\n(lesson ${name} ended with exit code ${message.code})\n`;
        endLesson();
      }
    };
    lessonWorker.onerror = (error) => fail(`the lesson worker failed: ${error.message}`);
    lessonWorker.postMessage({ lesson: name });
  });
}

// ---- Start ----
$('train-button').disabled = true;
setBusy('loading the engine', '');
createWhereami().then((engine) => {
  setUpWidget(engine);
  setUpExperiment(engine);
  setBusy('loading the engine', null);
}).catch((error) => fail(`the engine did not load: ${error}`));
setUpTraining();
fetch('lessons.json').then((answer) => answer.json()).then(setUpLessons)
  .catch((error) => fail(`the lessons' list did not load: ${error}`));
// The page's files kept as they are fetched, for a visit with the server gone (web/service_worker.js);
// browsers allow a service worker only on https or localhost.
if ('serviceWorker' in navigator && window.isSecureContext)
  navigator.serviceWorker.register('service_worker.js').catch(() => {});
