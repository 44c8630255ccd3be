// Small inline SVG charts: no library, drawn from numbers only (never from markup).
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 300;
const HEIGHT = 80;

function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

/** Bars per minute; `stacked` (failed) drawn on top of `values` (completed). */
export function barChart(svg, values, stacked = []) {
  const max = Math.max(1, ...values.map((v, i) => v + (stacked[i] ?? 0)));
  const slot = WIDTH / Math.max(values.length, 1);
  const bars = [];
  values.forEach((value, i) => {
    const failed = stacked[i] ?? 0;
    const h = (value / max) * (HEIGHT - 4);
    const f = (failed / max) * (HEIGHT - 4);
    const x = i * slot + 1;
    bars.push(element('rect', { class: 'bar', x, y: HEIGHT - h, width: slot - 2, height: h }));
    if (failed) bars.push(element('rect', { class: 'bar failed', x, y: HEIGHT - h - f, width: slot - 2, height: f }));
  });
  svg.replaceChildren(...bars);
  svg.dataset.total = String(values.reduce((sum, v) => sum + v, 0));
  svg.dataset.failed = String(stacked.reduce((sum, v) => sum + v, 0));
}

/** A line through the minutes that have a value (null: no message finished that minute). */
export function lineChart(svg, values) {
  const known = values.filter((v) => v !== null);
  const max = Math.max(1, ...known);
  const slot = WIDTH / Math.max(values.length - 1, 1);
  const points = values.flatMap((v, i) => (v === null ? [] : [`${i * slot},${HEIGHT - 2 - (v / max) * (HEIGHT - 6)}`]));
  const nodes = [];
  if (points.length > 1) nodes.push(element('polyline', { class: 'line', points: points.join(' ') }));
  for (const point of points) {
    const [cx, cy] = point.split(',');
    nodes.push(element('circle', { class: 'line', cx, cy, r: 1.5 }));
  }
  svg.replaceChildren(...nodes);
  svg.dataset.points = String(points.length);
}
