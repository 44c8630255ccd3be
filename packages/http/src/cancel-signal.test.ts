import { describe, expect, it, vi } from 'vitest';
import { CancelSource, toAbortSignal } from './cancel-signal.js';

describe('CancelSource', () => {
  it('calls each listener once, in the order added, with the reason set', () => {
    const source = new CancelSource();
    const heard: string[] = [];
    source.addEventListener('abort', () => heard.push(`first ${String(source.reason)}`));
    source.addEventListener('abort', () => heard.push(`second ${source.aborted}`));
    source.cancel('gone');
    source.cancel('again');
    expect(heard).toEqual(['first gone', 'second true']);
    expect(source.reason).toBe('gone');
  });

  it('does not call a removed listener, nor one added twice more than once', () => {
    const source = new CancelSource();
    const removed = vi.fn();
    const twice = vi.fn();
    source.addEventListener('abort', removed);
    source.addEventListener('abort', twice);
    source.addEventListener('abort', twice);
    source.removeEventListener('abort', removed);
    source.cancel(new Error('x'));
    expect(removed).not.toHaveBeenCalled();
    expect(twice).toHaveBeenCalledTimes(1);
  });

  it('calls the other listeners when one throws, and throws its error on the next tick', async () => {
    const source = new CancelSource();
    const after = vi.fn();
    source.addEventListener('abort', () => {
      throw new Error('listener failed');
    });
    source.addEventListener('abort', after);
    const uncaught = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    source.cancel('gone');
    expect(after).toHaveBeenCalledTimes(1);
    expect(await uncaught).toMatchObject({ message: 'listener failed' });
  });

  it('never calls a listener added once it is cancelled', () => {
    const source = new CancelSource();
    source.cancel('gone');
    const late = vi.fn();
    source.addEventListener('abort', late);
    source.cancel('again');
    expect(late).not.toHaveBeenCalled();
  });
});

describe('toAbortSignal', () => {
  it('is the signal itself for an AbortSignal', () => {
    const signal = new AbortController().signal;
    expect(toAbortSignal(signal)).toBe(signal);
  });

  it('aborts with the source’s reason, at once or when it is cancelled', () => {
    const early = new CancelSource();
    early.cancel('before');
    expect(toAbortSignal(early)).toMatchObject({ aborted: true, reason: 'before' });
    const late = new CancelSource();
    const signal = toAbortSignal(late);
    expect(signal.aborted).toBe(false);
    late.cancel('after');
    expect(signal).toMatchObject({ aborted: true, reason: 'after' });
  });
});
