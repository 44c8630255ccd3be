import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body's bytes as they came (a multipart upload's file is not UTF-8). */
  bytes: Buffer;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface LocalServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler for the requests that follow. */
  handle(handler: Handler): void;
  /**
   * Calls `listener` as each answer is ended, with the request and the status: after the handler
   * did its work (the platform accepted the call), before the last bytes go out, so a client
   * killed from the listener never hears the answer (SIGKILL lets it run no more code).
   */
  onAnswered(listener: (req: RecordedRequest, status: number) => void): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 and a free port, recording every request it gets. */
export async function startLocalServer(handler: Handler): Promise<LocalServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const answered: ((req: RecordedRequest, status: number) => void)[] = [];
  const server: Server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const body = bytes.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const recorded = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body, bytes, json };
    requests.push(recorded);
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof res.end>) => {
      for (const listener of answered) listener(recorded, res.statusCode);
      return end(...args);
    }) as typeof res.end;
    try {
      await current(recorded, res, raw);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    onAnswered(listener) {
      answered.push(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
