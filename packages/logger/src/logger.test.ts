import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import TransportStream from 'winston-transport';
import { createLogger } from './logger.js';

/** A logger whose lines land in an array, one parsed JSON object each. */
function capture(options: { secrets?: string[]; level?: string } = {}) {
  const raw: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      raw.push(chunk);
      done();
    },
  });
  const logger = createLogger({
    level: options.level ?? 'info',
    secrets: options.secrets,
    defaultMeta: { service: 'api' },
    stream,
  });
  // The transport writes as the line is logged: no event-loop turn to wait for.
  const lines = () => raw.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, raw, lines };
}

describe('createLogger', () => {
  it('writes one JSON line per call with the message, level, timestamp, default and given fields', () => {
    const { logger, raw, lines } = capture();
    logger.info({ message: 'request', method: 'POST', status: 200, ms: 1.5 });
    logger.warn('slow', { path: '/v1/models' });
    expect(raw).toHaveLength(2);
    expect(raw.every((line) => line.endsWith('}\n') && line.indexOf('\n') === line.length - 1)).toBe(true);
    const [first, second] = lines();
    expect(first).toEqual({
      message: 'request',
      level: 'info',
      service: 'api',
      method: 'POST',
      status: 200,
      ms: 1.5,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(second).toMatchObject({ message: 'slow', level: 'warn', path: '/v1/models', service: 'api' });
  });

  it('sorts the keys of a line, so the same record always reads the same', () => {
    const { logger, raw } = capture();
    logger.info({ message: 'm', zebra: 1, alpha: { b: 2, a: 1 } });
    expect(raw[0]).toMatch(
      /^\{"alpha":\{"a":1,"b":2\},"level":"info","message":"m","service":"api","timestamp":"[^"]+","zebra":1\}\n$/,
    );
  });

  it('writes nothing below its level', () => {
    const { logger, raw } = capture({ level: 'warn' });
    logger.info({ message: 'request' });
    logger.debug('detail');
    expect(raw).toEqual([]);
  });

  it('cuts configured secrets and Bearer credentials out of every string, at any depth', () => {
    const { logger, lines } = capture({ secrets: ['sk-live-123456'] });
    logger.error('upstream said sk-live-123456 was wrong', {
      detail: 'header was Bearer client-key-999, retried',
      nested: { text: 'x sk-live-123456 y', list: ['bearer abc'], token: 'plain', apiKey: 'k' },
    });
    const [line] = lines();
    expect(JSON.stringify(line)).not.toContain('sk-live-123456');
    expect(JSON.stringify(line)).not.toContain('client-key-999');
    expect(line).toMatchObject({
      message: 'upstream said [redacted] was wrong',
      detail: 'header was Bearer [redacted], retried',
      nested: { text: 'x [redacted] y', list: ['bearer [redacted]'], token: '[redacted]', apiKey: '[redacted]' },
    });
  });

  it('writes an Error with its stack, and a BigInt as a string', () => {
    const { logger, lines } = capture();
    logger.error(new Error('boom'));
    logger.info({ message: 'count', total: 12345678901234567890n });
    const [error, count] = lines();
    expect(error).toMatchObject({ level: 'error', message: 'boom', stack: expect.stringContaining('Error: boom') });
    expect(count).toMatchObject({ total: '12345678901234567890' });
  });

  it('writes the same line from a child logger, and nothing while silent', () => {
    const { logger, lines } = capture();
    logger.child({ hook: 'h1' }).warn('from the child', { n: 1 });
    logger.silent = true;
    logger.error('hushed');
    logger.silent = false;
    expect(lines()).toEqual([
      { message: 'from the child', level: 'warn', hook: 'h1', n: 1, service: 'api', timestamp: expect.any(String) },
    ]);
  });

  it('writes each line to every transport at its own level once another is added', () => {
    const { logger, raw } = capture();
    const other = new Collect({ level: 'debug' });
    logger.add(other);
    logger.info({ message: 'both', status: 200 });
    logger.debug('detail');
    expect(raw).toHaveLength(1);
    expect(raw[0]).toContain('"message":"both"');
    expect(other.lines.map((line) => JSON.parse(line).message)).toEqual(['both', 'detail']);
  });
});

/** A second transport, as an operator's own could be. */
class Collect extends TransportStream {
  readonly lines: string[] = [];
  override log(info: Record<symbol, unknown>, next: () => void): void {
    this.lines.push(info[Symbol.for('message')] as string);
    next();
  }
}
