#!/usr/bin/env node
// The per-event work of a relayed stream, alone: the stand-in upstream's chat stream (the same 12
// chunks and [DONE], `bench/fixture.mjs`) decoded by the providers' SseDecoder, each event read by
// the OpenAI provider's fromUpstreamEvent and written out again as JSON, as the gateway writes it
// (from the choices' own text when the reader kept it). Prints CPU µs per event (median of 5
// rounds). Run it in two trees in turn to compare builds. Builds nothing; run `npx turbo run
// build` first.
//   node bench/stream-events.mjs
import { REPLY_PIECES } from './fixture.mjs';

const { SseDecoder } = await import(new URL('../packages/http/dist/sse-parser.js', import.meta.url).href);
const { fromUpstreamEvent } = await import(new URL('../packages/providers/dist/openai/chat-complete.js', import.meta.url).href);

const event = (delta, finishReason = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-BenchUpstream',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    service_tier: 'default',
    system_fingerprint: 'fp_bench0001',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  })}\n\n`;
const reads = [
  event({ role: 'assistant', content: '', refusal: null }),
  ...REPLY_PIECES.map((content) => event({ content })),
  event({}, 'stop'),
  'data: [DONE]\n\n',
].map((text) => Buffer.from(text));

let bytes = 0;
const HEAD = '{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":';
function relayOneStream() {
  const decoder = new SseDecoder();
  for (const read of reads) {
    for (const sse of decoder.push(read)) {
      const chunk = fromUpstreamEvent('bench', sse);
      if (chunk && chunk !== 'done') {
        // As the gateway writes a chunk: with the choices' own text when the reader kept it
        // (`choicesJson`, normalize-stream.ts's chunkJson), else JSON.stringify.
        bytes += (
          chunk.choicesJson === undefined
            ? JSON.stringify({
                id: 'chatcmpl-x',
                object: 'chat.completion.chunk',
                created: 1,
                model: 'm',
                choices: chunk.choices,
              })
            : `${HEAD}${chunk.choicesJson}}`
        ).length;
      }
    }
  }
}
const STREAMS = 50_000;
for (let i = 0; i < 20_000; i++) relayOneStream(); // warm-up
const results = [];
for (let round = 0; round < 5; round++) {
  const cpu = process.cpuUsage();
  for (let i = 0; i < STREAMS; i++) relayOneStream();
  const used = process.cpuUsage(cpu);
  results.push((used.user + used.system) / STREAMS / reads.length);
}
results.sort((a, b) => a - b);
console.log(
  `stream events: ${results[2].toFixed(2)} µs CPU per event (median of 5 rounds of ${STREAMS} streams, ${bytes > 0 ? 'written' : 'nothing written'})`,
);
