import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { drained } from './sse.js';

describe('drained', () => {
  it('leaves no listener behind on a response that drains again and again (a slow reader)', async () => {
    const res = new EventEmitter();
    for (let i = 0; i < 50; i++) {
      const waiting = drained(res as unknown as ServerResponse);
      res.emit('drain');
      await waiting;
    }
    expect(['close', 'drain', 'error'].map((event) => res.listenerCount(event))).toEqual([0, 0, 0]);
  });

  it('ends the wait when the client leaves instead of reading', async () => {
    const res = new EventEmitter();
    const waiting = drained(res as unknown as ServerResponse);
    res.emit('close');
    await waiting;
    expect(['close', 'drain', 'error'].map((event) => res.listenerCount(event))).toEqual([0, 0, 0]);
  });

  it('passes on an error of the response', async () => {
    const res = new EventEmitter();
    const waiting = drained(res as unknown as ServerResponse);
    res.emit('error', new Error('socket broke'));
    await expect(waiting).rejects.toThrow('socket broke');
  });
});
