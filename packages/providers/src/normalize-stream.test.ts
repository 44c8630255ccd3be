import type { ChatCompletionRequest, Usage } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { chunkJson, normalizeStream } from './normalize-stream.js';
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

  it('writes each chunk as JSON.stringify does, with the choices text a provider had when they pass on as they came', async () => {
    const withText = (choices: ProviderChunk['choices']): ProviderChunk => ({ choices, choicesJson: JSON.stringify(choices) });
    const out = (
      await all(
        normalizeStream(
          batches(
            // The first delta gains its role (its text no longer fits), the next pass on with theirs,
            // a second choice starts without its text, and the end adds a finish_reason.
            [withText([{ index: 0, delta: { content: 'a "b"\n' }, finish_reason: null }])],
            [
              withText([{ index: 0, delta: { content: '😀' }, logprobs: null, finish_reason: null }]),
              { choices: [{ index: 1, delta: { role: 'assistant', content: 'c' }, finish_reason: null }] },
            ],
            [withText([{ index: 0, delta: {}, finish_reason: 'stop' }])],
          ),
          { ...request, stream_options: { include_usage: true } },
          { id: 'chatcmpl-"2"', model: 'p/\u00e9', created: 8 },
        ),
      )
    ).flat() as object[];
    expect(out).toHaveLength(6);
    for (const chunk of out) expect(chunkJson(chunk)).toBe(JSON.stringify(chunk));
    const copy = { ...out[1]!, id: 'chatcmpl-other' }; // a restamped copy: its own JSON, not the chunk's text
    expect(chunkJson(copy)).toBe(JSON.stringify(copy));
    expect(chunkJson({ choices: [] })).toBe('{"choices":[]}');
  });
});
