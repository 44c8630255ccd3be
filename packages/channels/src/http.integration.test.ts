import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from './delivery-error.js';
import { DeliveryClient } from './http.js';

type Route = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const routes: Record<string, Route> = {
  '/echo': (request, body, response) => {
    response.setHeader('set-cookie', ['a=1', 'b=2']);
    response.setHeader('x-seen', request.headers['content-type'] ?? '');
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ body: JSON.parse(body), query: request.url }));
  },
  '/limited': (_request, _body, response) => {
    response.writeHead(429, { 'retry-after': '3', 'content-type': 'text/plain' });
    response.end('slow down');
  },
  '/huge': (_request, _body, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('x'.repeat(300 * 1024));
  },
  '/cut': (_request, _body, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    response.write('{"partial":');
    setTimeout(() => response.socket?.destroy(), 20);
  },
};

describe('DeliveryClient.send', () => {
  let server: Server;
  let origin: string;
  const client = new DeliveryClient();
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => routes[(request.url ?? '').split('?')[0]!]!(request, body, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends JSON and reads the status, the headers (repeated ones as a list) and the JSON answer', async () => {
    const reply = await client.send({ label: 'Echo', method: 'POST', url: `${origin}/echo?x=1`, body: { hello: 'wörld' } });
    expect(reply.status).toBe(201);
    expect(reply.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(reply.headers['x-seen']).toBe('application/json');
    expect(reply.json).toEqual({ body: { hello: 'wörld' }, query: '/echo?x=1' });
    expect(reply.text).toBe(JSON.stringify(reply.json));
  });

  it('reads a refusal whatever its status, with its text and no JSON', async () => {
    const reply = await client.send({ label: 'Limited', method: 'GET', url: `${origin}/limited` });
    expect(reply).toMatchObject({ status: 429, text: 'slow down', json: undefined });
    expect(reply.headers['retry-after']).toBe('3');
  });

  it('keeps the first 256 KiB of a larger answer, drops the rest, and the pool still serves the next call', async () => {
    const reply = await client.send({ label: 'Huge', method: 'GET', url: `${origin}/huge` });
    expect(reply.status).toBe(200);
    expect(reply.text.length).toBeLessThanOrEqual(256 * 1024);
    expect(reply.text.length).toBeGreaterThan(0);
    expect(/^x+$/.test(reply.text)).toBe(true);
    const next = await client.send({ label: 'Echo', method: 'POST', url: `${origin}/echo`, body: { again: true } });
    expect(next.json).toMatchObject({ body: { again: true } });
  });

  it('fails retryably, naming only the error code, when the answer is cut short or nobody listens', async () => {
    const cut = await client.send({ label: 'Cut', method: 'GET', url: `${origin}/cut` }).catch((err: unknown) => err);
    expect(cut).toBeInstanceOf(DeliveryError);
    expect((cut as DeliveryError).retryable).toBe(true);
    expect((cut as DeliveryError).message).toMatch(/^Cut could not reach the server \(/);
    const closed = new DeliveryClient();
    const refused = await closed
      .send({ label: 'Nobody', method: 'GET', url: 'http://127.0.0.1:1/x' })
      .catch((err: unknown) => err)
      .finally(() => closed.close());
    expect(refused).toBeInstanceOf(DeliveryError);
    expect((refused as DeliveryError).message).toBe('Nobody could not reach the server (ECONNREFUSED)');
  });
});
