import type { ChatCompletionRequest, Usage } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { normalizeStream } from './normalize-stream.js';
import type { ProviderChunk } from './provider.js';

const head = { id: 'chatcmpl-1', model: 'p/m', created: 7 };
const request: ChatCompletionRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

async function* batches(...reads: ProviderChunk[][]) {
  for (const read of reads) yield read;
}
async function all(stream: AsyncIterable<unknown[]>) {
  const out: unknown[][] = [];
  for await (const batch of stream) out.push(batch);
  return out;
}

describe('normalizeStream', () => {
  it('stamps each chunk, gives the first delta its role once, and adds the missing finish_reason', async () => {
    const first: ProviderChunk = { choices: [{ index: 0, delta: { content: 'He' }, finish_reason: null }] };
    const out = await all(
      normalizeStream(
        batches([first, { choices: [{ index: 0, delta: { content: 'llo' }, finish_reason: null }] }]),
        request,
        head,
      ),
    );
    const stamp = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 7, model: 'p/m' };
    expect(out).toEqual([
      [
        { ...stamp, choices: [{ index: 0, delta: { role: 'assistant', content: 'He' }, finish_reason: null }] },
        { ...stamp, choices: [{ index: 0, delta: { content: 'llo' }, finish_reason: null }] },
      ],
      [{ ...stamp, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }],
    ]);
    expect(first.choices[0]!.delta).toEqual({ content: 'He' }); // the provider's chunk is not changed
  });

  it('passes a first delta that names its role on as it is', async () => {
    const choice = { index: 0, delta: { role: 'assistant' as const, content: '' }, finish_reason: 'stop' };
    const [[chunk]] = (await all(normalizeStream(batches([{ choices: [choice] }]), request, head))) as [[{ choices: unknown[] }]];
    expect(chunk.choices[0]).toBe(choice);
  });

  it('holds the usage chunk back unless the client asked for it, and reports the usage at the end', async () => {
    const usage: Usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const read = (): ProviderChunk[] => [
      { choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] },
      { choices: [], usage },
    ];
    const heard: Usage[] = [];
    const quiet = await all(normalizeStream(batches(read()), request, head, (u) => heard.push(u)));
    expect(quiet.flat()).toHaveLength(1);
    const asked = await all(normalizeStream(batches(read()), { ...request, stream_options: { include_usage: true } }, head));
    expect(asked.flat().at(-1)).toMatchObject({ choices: [], usage });
    expect(heard).toEqual([usage]);
  });
});
