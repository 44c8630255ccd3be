import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedWriter, type OnWriteFailure } from './batched-writer.js';

/** A writer of string entries whose writes the test sees and settles (nothing here talks to Redis). */
function writerOf(options: { onFailure?: OnWriteFailure<string[]>; flushMs?: number; closeWithinMs?: number } = {}) {
  const writes: { batch: string[]; resolve(): void; reject(err: Error): void }[] = [];
  const writer = new BatchedWriter<string[]>({
    open: () => [],
    write: (batch) =>
      new Promise<void>((resolve, reject) => {
        writes.push({ batch, resolve, reject });
      }),
    onFailure: options.onFailure ?? 'drop',
    flushMs: options.flushMs,
    closeWithinMs: options.closeWithinMs,
  });
  return { writer, writes, batches: () => writes.map((w) => w.batch) };
}

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));
/** How `promise` stands at the end of this turn: a promise that never settles reads `pending`, not a time-out. */
const stateOf = (promise: Promise<unknown>) =>
  Promise.race([
    promise.then(
      () => 'resolved',
      (err: Error) => `rejected: ${err.message}`,
    ),
    endOfTurn().then(() => 'pending'),
  ]);
const keepInOrder: OnWriteFailure<string[]> = { keep: (failed, gathering) => gathering.unshift(...failed) };

afterEach(() => {
  vi.useRealTimers();
});

describe('BatchedWriter', () => {
  it('writes the entries gathered since the first one flushMs after it, all in one write', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, batches } = writerOf({ flushMs: 1_000 });
    writer.batch.push('a');
    vi.advanceTimersByTime(600);
    writer.batch.push('b');
    vi.advanceTimersByTime(399);
    expect(batches()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(batches()).toEqual([['a', 'b']]);
    writer.batch.push('c');
    vi.advanceTimersByTime(1_000);
    expect(batches()).toEqual([['a', 'b'], ['c']]);
  });

  it('gives each batch its own flushMs: one written early leaves no timer to cut the next one short', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, batches } = writerOf({ flushMs: 1_000 });
    writer.batch.push('a');
    vi.advanceTimersByTime(500);
    void writer.flush();
    vi.advanceTimersByTime(100);
    writer.batch.push('b');
    vi.advanceTimersByTime(900);
    expect(batches()).toEqual([['a']]);
    vi.advanceTimersByTime(100);
    expect(batches()).toEqual([['a'], ['b']]);
  });

  it('writes nothing while nothing is gathered', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, batches } = writerOf();
    vi.advanceTimersByTime(10_000);
    writer.soon();
    expect(batches()).toEqual([]);
  });

  it('writes at the end of the turn once soon() is asked, and only the batch that asked', async () => {
    const { writer, batches } = writerOf({ flushMs: 60_000 });
    writer.batch.push('a');
    writer.soon();
    writer.batch.push('b');
    writer.soon();
    expect(batches()).toEqual([]);
    await endOfTurn();
    expect(batches()).toEqual([['a', 'b']]);
    writer.batch.push('c');
    await endOfTurn();
    expect(batches()).toEqual([['a', 'b']]);
  });

  it('settles `written` with its batch: resolved once the write is, rejected with its error', async () => {
    const { writer, writes } = writerOf();
    writer.batch.push('a');
    const first = writer.written;
    expect(writer.written).toBe(first);
    void writer.flush().catch(() => {});
    writer.batch.push('b');
    const second = writer.written;
    void writer.flush().catch(() => {});
    writes[0]?.resolve();
    writes[1]?.reject(new Error('Connection is closed.'));
    expect(await stateOf(first)).toBe('resolved');
    expect(await stateOf(second)).toBe('rejected: Connection is closed.');
  });

  it('drops a failed batch when told to: flush() rejects and the next write holds only what came after', async () => {
    const { writer, writes, batches } = writerOf({ onFailure: 'drop' });
    writer.batch.push('a');
    const failed = writer.flush();
    writes[0]?.reject(new Error('Connection is closed.'));
    await expect(failed).rejects.toThrow('Connection is closed.');
    writer.batch.push('b');
    void writer.flush();
    expect(batches()).toEqual([['a'], ['b']]);
  });

  it('keeps a failed batch when told to: its entries go back and its timer writes them with the next', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, writes, batches } = writerOf({ onFailure: keepInOrder, flushMs: 1_000 });
    writer.batch.push('a');
    vi.advanceTimersByTime(1_000);
    writes[0]?.reject(new Error('Connection is closed.'));
    await vi.advanceTimersByTimeAsync(0);
    writer.batch.push('b');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(batches()).toEqual([['a'], ['a', 'b']]);
  });

  it('keeps nothing once closed: a write failing after close() is not tried again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, writes, batches } = writerOf({ onFailure: keepInOrder });
    writer.batch.push('a');
    const closed = writer.close();
    writes[0]?.reject(new Error('Connection is closed.'));
    await expect(closed).rejects.toThrow('Connection is closed.');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(batches()).toEqual([['a']]);
  });

  it('close() writes what is gathered, and returns after closeWithinMs when Redis never answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, batches } = writerOf({ closeWithinMs: 1_000 });
    writer.batch.push('a');
    let returned = false;
    void writer.close().then(() => {
      returned = true;
    });
    expect(batches()).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(999);
    expect(returned).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(returned).toBe(true);
  });

  it("writeWith() hands what is gathered to the caller's own write, which settles `written` and owns the entries", async () => {
    const { writer, writes, batches } = writerOf({ onFailure: keepInOrder });
    writer.batch.push('a');
    const written = writer.written;
    const handed: (string[] | undefined)[] = [];
    const own = writer.writeWith(async (batch) => {
      handed.push(batch);
      throw new Error('Connection is closed.');
    });
    expect(await stateOf(own)).toBe('rejected: Connection is closed.');
    expect(await stateOf(written)).toBe('rejected: Connection is closed.');
    expect(handed).toEqual([['a']]);
    await writer.writeWith(async (batch) => void handed.push(batch));
    expect(handed).toEqual([['a'], undefined]);
    void writer.flush();
    expect(batches()).toEqual([]);
    expect(writes).toEqual([]);
  });
});
