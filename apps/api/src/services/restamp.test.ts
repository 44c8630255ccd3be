import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { restampChunks, restampCompletion, restampResponse, restampResponseEvents } from './restamp.js';

/** What was stored when the answer was first made: its id and time are the old ones. */
const STORED_AT = 1_700_000_000;
const NOW = new Date('2026-03-04T05:06:07Z');
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

const completion = {
  id: 'chatcmpl-stored',
  object: 'chat.completion',
  created: STORED_AT,
  model: 'mock/gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

describe('a cached chat answer sent again', () => {
  it('has a new chatcmpl id and the current time, and everything the model said as stored', () => {
    const again = restampCompletion(completion);
    expect(again).toEqual({ ...completion, id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/), created: NOW_SECONDS });
    expect(again.id).not.toBe(completion.id);
    expect(completion.id).toBe('chatcmpl-stored'); // the stored entry is not changed
  });

  it('gets an id of its own each time it is sent', () => {
    expect(restampCompletion(completion).id).not.toBe(restampCompletion(completion).id);
  });
});

describe('a cached chat stream replayed', () => {
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-stored',
    object: 'chat.completion.chunk',
    created: STORED_AT,
    model: 'mock/gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const stored = [
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'hel' }),
    chunk({ content: 'lo' }),
    chunk({}, 'stop'),
  ];

  it('gives every chunk one new id and the current time, the deltas as stored and in order', () => {
    const replayed = restampChunks(stored);
    const id = replayed[0]!.id;
    expect(id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(id).not.toBe('chatcmpl-stored');
    expect(replayed).toEqual(stored.map((c) => ({ ...c, id, created: NOW_SECONDS })));
  });

  it('gives each replay an id of its own', () => {
    expect(restampChunks(stored)[0]!.id).not.toBe(restampChunks(stored)[0]!.id);
  });
});

describe('a cached Response sent again', () => {
  const response = {
    id: 'resp_stored',
    object: 'response',
    created_at: STORED_AT,
    status: 'completed',
    model: 'mock/gpt-4o-mini',
    output: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] }],
  };

  it('has a new resp_ id and created_at, the output as stored', () => {
    expect(restampResponse(response)).toEqual({
      ...response,
      id: expect.stringMatching(/^resp_[0-9a-f]{32}$/),
      created_at: NOW_SECONDS,
    });
    expect(restampResponse(response).id).not.toBe('resp_stored');
  });

  it('restamps the Response inside every lifecycle event alike, and leaves the other events as stored', () => {
    const events = [
      { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [] } },
      { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', delta: 'hello' },
      { type: 'response.completed', sequence_number: 2, response },
    ];
    const replayed = restampResponseEvents(events);
    const id = (replayed[0]!.response as { id: string }).id;
    expect(id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(replayed).toEqual([
      { ...events[0], response: { ...events[0]!.response, id, created_at: NOW_SECONDS } },
      events[1],
      { ...events[2], response: { ...response, id, created_at: NOW_SECONDS } },
    ]);
    expect((restampResponseEvents(events)[0]!.response as { id: string }).id).not.toBe(id);
  });
});
