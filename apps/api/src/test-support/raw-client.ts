import { Agent, type IncomingHttpHeaders, request } from 'node:http';

export interface RawRequest {
  method: string;
  /** Sent as written: percent-encoding and all. */
  path: string;
  headers: Record<string, string>;
  /** Sent with an exact Content-Length; none means no body and no Content-Length. */
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawClient {
  send(request: RawRequest): Promise<RawResponse>;
  /** Requests sent so far, answered or not. */
  readonly sent: number;
  close(): void;
}

/**
 * A client that sends what it is given, over keep-alive connections. node:http rather than fetch:
 * fetch trims header values, refuses a body on GET and HEAD, and knows fewer methods; node:http
 * sends any method, path and header value the HTTP grammar allows, as given.
 */
export function createRawClient(baseUrl: string, timeoutMs = 20_000): RawClient {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let sent = 0;
  return {
    get sent() {
      return sent;
    },
    send({ method, path, headers, body }) {
      sent++;
      return new Promise((resolve, reject) => {
        const outgoing = request(
          {
            hostname,
            port,
            method,
            path,
            agent,
            // Without a Content-Length Node sends GET/DELETE bodies unframed, as the next request.
            headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
            );
          },
        );
        outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
