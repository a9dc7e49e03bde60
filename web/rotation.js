// The widget's rotation, drawn: the chapter's q and k (head dimension 8) as four pairs, each pair an
// arrow in its own plane, q's turned by m times the pair's angle theta_i and k's by n times it, as
// the engine rotates them (rotation_pairs, web/page_widget.cpp); the angle between the two arrows
// marked. Moving both positions by +5 turns both arrows of a pair by the same 5 theta_i, so the
// angle between them, each pair's share of the score and the RoPE score stay. Beside it the score
// against the distance n - m for this m: RoPE's curve is the same for every m, the sinusoids' is not.
// Leaves out the scores' table and the sliders (web/page.js).
'use strict';

const degrees = (radians) => (radians * 180) / Math.PI;
// The angle from q's arrow to k's, in (-180, 180] degrees.
function angleBetween(q, k) {
  let a = degrees(Math.atan2(k[1], k[0]) - Math.atan2(q[1], q[0]));
  while (a <= -180) a += 360;
  while (a > 180) a -= 360;
  return a;
}

function sizedCanvas(canvas, width, height) {
  const scale = window.devicePixelRatio || 1;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const c = canvas.getContext('2d');
  c.setTransform(scale, 0, 0, scale, 0, 0);
  c.font = '11px system-ui, sans-serif';
  return c;
}

function arrow(c, x0, y0, x1, y1, colour) {
  c.strokeStyle = colour;
  c.fillStyle = colour;
  c.lineWidth = 2;
  c.beginPath();
  c.moveTo(x0, y0);
  c.lineTo(x1, y1);
  c.stroke();
  const a = Math.atan2(y1 - y0, x1 - x0);
  c.beginPath();
  c.moveTo(x1, y1);
  c.lineTo(x1 - 8 * Math.cos(a - 0.4), y1 - 8 * Math.sin(a - 0.4));
  c.lineTo(x1 - 8 * Math.cos(a + 0.4), y1 - 8 * Math.sin(a + 0.4));
  c.closePath();
  c.fill();
  c.lineWidth = 1;
}

// Four panels, one per pair: in a row when there is room, else two by two.
function drawRotationPairs(rotation) {
  const canvas = $('rotation-canvas');
  const room = canvas.parentElement.clientWidth || 640;
  const columns = room >= 600 ? 4 : 2, panel = Math.min(170, Math.floor(room / columns) - 4);
  const rows = Math.ceil(rotation.pairs.length / columns);
  const c = sizedCanvas(canvas, columns * panel, rows * (panel + 34));
  const largest = Math.max(...rotation.pairs.flatMap((p) => [Math.hypot(...p.q), Math.hypot(...p.k)]));
  rotation.pairs.forEach((pair, i) => {
    const ox = (i % columns) * panel + panel / 2, oy = Math.floor(i / columns) * (panel + 34) + 16 + panel / 2;
    const r = panel / 2 - 14, unit = r / largest;
    c.strokeStyle = '#ccc';
    c.beginPath();
    c.arc(ox, oy, r, 0, 2 * Math.PI);
    c.moveTo(ox - r, oy);
    c.lineTo(ox + r, oy);
    c.moveTo(ox, oy - r);
    c.lineTo(ox, oy + r);
    c.stroke();
    // The screen's y grows downwards: a pair (x, y) is drawn at (x, -y) so that turning is anticlockwise.
    const at = (v) => [ox + v[0] * unit, oy - v[1] * unit];
    const aq = Math.atan2(pair.q_turned[1], pair.q_turned[0]);
    const between = angleBetween(pair.q_turned, pair.k_turned);
    c.strokeStyle = '#888';
    c.beginPath();
    c.arc(ox, oy, r * 0.3, -aq, -(aq + (between * Math.PI) / 180), between > 0);
    c.stroke();
    arrow(c, ox, oy, ...at(pair.q_turned), '#1f5fbf');
    arrow(c, ox, oy, ...at(pair.k_turned), '#d9822b');
    c.fillStyle = '#1b1b1b';
    c.fillText(`pair ${i}: \u03b8 = ${pair.theta.toPrecision(3)}`, ox - panel / 2 + 4, oy - panel / 2 + 2);
    c.fillText(`angle ${between.toFixed(1)}\u00b0, share ${pair.dot >= 0 ? '+' : ''}${pair.dot.toFixed(3)}`,
      ox - panel / 2 + 4, oy + panel / 2 + 12);
  });
}

// RoPE's and the sinusoids' scores against the distance n - m, for this m, at every key position
// within 40 of it; the present pair (m, n) marked on both curves.
function drawDistanceCurve(engine, m, n, positions) {
  const canvas = $('distance-canvas');
  const width = Math.min(canvas.parentElement.clientWidth || 640, 640), height = 200;
  const c = sizedCanvas(canvas, width, height);
  const keys = [];
  for (let key = Math.max(0, m - 40); key <= Math.min(positions - 1, m + 40); ++key) keys.push(key);
  const points = keys.map((key) => {
    const s = JSON.parse(engine.position_scores(m, key, 0));
    return { d: key - m, rope: s.rope, sinusoid: s.sinusoid };
  });
  const values = points.flatMap((p) => [p.rope, p.sinusoid]);
  const low = Math.min(...values), high = Math.max(...values);
  const left = 40, right = 10, top = 14, bottom = 24;
  const x = (d) => left + ((width - left - right) * (d + 40)) / 80;
  const y = (v) => top + ((height - top - bottom) * (high - v)) / Math.max(1e-9, high - low);
  c.strokeStyle = '#ccc';
  c.beginPath();
  c.moveTo(x(0), top);
  c.lineTo(x(0), height - bottom);
  c.moveTo(left, y(0));
  c.lineTo(width - right, y(0));
  c.stroke();
  c.fillStyle = '#1b1b1b';
  for (const d of [-40, -20, 0, 20, 40]) c.fillText(String(d).replace('-', '\u2212'), x(d) - 8, height - 8);
  c.fillText(high.toFixed(1), 2, top + 4);
  c.fillText(low.toFixed(1), 2, height - bottom);
  c.fillText(`score against the distance n \u2212 m, for m = ${m}`, left + 4, 11);
  for (const [name, colour] of [['rope', '#1f5fbf'], ['sinusoid', '#2ca02c']]) {
    c.strokeStyle = colour;
    c.lineWidth = 1.5;
    c.beginPath();
    points.forEach((p, i) => (i ? c.lineTo(x(p.d), y(p[name])) : c.moveTo(x(p.d), y(p[name]))));
    c.stroke();
    const here = points.find((p) => p.d === n - m);
    if (here) {
      c.fillStyle = colour;
      c.beginPath();
      c.arc(x(here.d), y(here[name]), 4, 0, 2 * Math.PI);
      c.fill();
    }
  }
  c.lineWidth = 1;
  c.fillStyle = '#1f5fbf';
  c.fillText('RoPE', width - right - 90, top + 14);
  c.fillStyle = '#2ca02c';
  c.fillText('sinusoids', width - right - 50, top + 14);
}

// The drawing and its sentence for the widget at (m, n); `before` the rotation and scores before
// "Move both by +5", when that was the last change.
function drawRotation(engine, now, before) {
  const rotation = JSON.parse(engine.rotation_pairs(now.m, now.n));
  if (rotation.error) throw new Error(rotation.error);
  drawRotationPairs(rotation);
  drawDistanceCurve(engine, now.m, now.n, now.positions);
  const angles = rotation.pairs.map((p) => angleBetween(p.q_turned, p.k_turned));
  const canvas = $('rotation-canvas');
  canvas.dataset.angles = angles.map((a) => a.toFixed(4)).join(' ');
  canvas.dataset.turns = rotation.pairs.map((p) => Math.atan2(p.q_turned[1], p.q_turned[0]).toFixed(4)).join(' ');
  let note = `q at ${now.m} (blue) and k at ${now.n} (orange), pair by pair; the angles between them: ` +
    angles.map((a) => `${a.toFixed(1)}\u00b0`).join(', ') + `. The RoPE score is the sum of the pairs' shares, ${rotation.rope.toFixed(4)}.`;
  if (before) {
    const turned = rotation.pairs.map((p) => `${(degrees(5 * p.theta) % 360).toFixed(1)}\u00b0`).join(', ');
    const kept = before.angles.every((a, i) => Math.abs(((a - angles[i] + 540) % 360) - 180) < 1e-3);
    note = `Both moved by +5: each pair's two arrows turned together, by 5\u03b8 (${turned}). ` +
      (kept ? 'The angle between them did not change in any pair, so neither did the RoPE score ' +
        `(${before.rope.toFixed(4)} before, ${rotation.rope.toFixed(4)} now).` :
        'The angles between them changed.') +
      ` The sinusoids' score, which adds position instead of turning, went from ${before.sinusoid.toFixed(4)} to ${now.sinusoid.toFixed(4)}.`;
  }
  $('rotation-note').textContent = note;
  return { angles, rope: rotation.rope, sinusoid: now.sinusoid };
}
