// The live-reply scenario's table and targets (see hub-live.mjs).
import { percentiles } from './load.mjs';

const ms = (value) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 0) : '–');
const pair = (values) => {
  if (!values.length) return '–';
  const { p50, p99 } = percentiles(values);
  return `${ms(p50)} / ${ms(p99)}`;
};
const calls = (result) =>
  `${result.callsPerMessage.toFixed(2)} (${Object.entries(result.callsByMethod)
    .map(([method, count]) => `${method} ${(count / result.messages).toFixed(2)}`)
    .join(', ')})`;

/**
 * @param {{ whole: any, live: any, options: any }} result
 * @returns {string} markdown: the table, then the targets
 */
export function liveReport({ whole, live, options: o }) {
  const visible = (r) => r.firstVisible.map((m) => m.visible);
  const ttft = (r) => r.firstVisible.map((m) => m.ttft);
  const gap = (r) => r.firstVisible.map((m) => m.visible - m.ttft);
  const rows = [
    ['messages measured', whole.messages, live.messages, ''],
    [
      'worker CPU ms/msg',
      ms(whole.cpuMsPerMessage.worker),
      ms(live.cpuMsPerMessage.worker),
      (live.cpuMsPerMessage.worker / whole.cpuMsPerMessage.worker).toFixed(2),
    ],
    ['API CPU ms/msg', ms(whole.cpuMsPerMessage.api), ms(live.cpuMsPerMessage.api), ''],
    ['Telegram calls/msg', calls(whole), calls(live), ''],
    ['model time to first token, p50 / p99 ms', pair(ttft(whole)), pair(ttft(live)), ''],
    ['first visible text after the model call began, p50 / p99 ms', pair(visible(whole)), pair(visible(live)), ''],
    ['first visible − first token, p50 / p99 ms', pair(gap(whole)), pair(gap(live)), ''],
    ['429s drawn from the fake Telegram', whole.refused, live.refused, ''],
    ['other cores busy (machine CPU not ours ÷ wall time)', whole.otherCores.toFixed(2), live.otherCores.toFixed(2), ''],
  ];
  const table = [
    '| live replies | whole (`stream: false`) | live (`stream: true`) | live ÷ whole |',
    '| --- | ---: | ---: | ---: |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

  const bound = (m) => 1.2 * m.ttft + o.intervalMs;
  const within = live.firstVisible.filter((m) => m.visible <= bound(m));
  const worst = live.firstVisible.reduce((w, m) => (!w || m.visible - bound(m) > w.visible - bound(w) ? m : w), null);
  const cpuRatio = live.cpuMsPerMessage.worker / whole.cpuMsPerMessage.worker;
  const firstOk = live.firstVisible.length === live.messages && within.length === live.messages;
  const targets = [
    `- first visible text ≤ 1.2 × the model's time to first token + one edit interval (${o.intervalMs} ms): ${within.length}/${live.messages} messages` +
      (worst ? ` (closest: ${ms(worst.visible)} ms against ${ms(bound(worst))} ms)` : '') +
      ` — ${firstOk ? 'PASS' : 'FAIL'}`,
    `- worker CPU of a streamed reply ≤ 2 × a whole one of the same length: ${cpuRatio.toFixed(2)}× — ${cpuRatio <= 2 ? 'PASS' : 'FAIL'}`,
    `- no 429 from the fake Telegram: ${whole.refused + live.refused} — ${whole.refused + live.refused === 0 ? 'PASS' : 'FAIL'}`,
  ].join('\n');
  const header =
    `Live replies: a Telegram group message per chat, model \`paced\` (first token after ${o.ttftMs} ms, then 40 chunks ` +
    `${o.tokenMs} ms apart), streamIntervalMs ${o.intervalMs}, ${o.inflight} messages in flight, worker concurrency ${o.concurrency}, ` +
    `${o.warmup} warm-up messages per hook. "First visible" is the fake Telegram receiving the first sendMessage, from the ` +
    "moment the model's server got the request; a whole reply's first text is the whole reply.";
  return `${header}\n\n${table}\n\nTargets (live replies):\n\n${targets}`;
}
