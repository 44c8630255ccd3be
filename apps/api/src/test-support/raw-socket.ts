import { connect, type Socket } from 'node:net';

export interface RawExchange {
  socket: Socket;
  /** Everything the server wrote so far. */
  readonly received: string;
  /** Resolves with what the server wrote once it closes the connection; rejects after `boundMs`. */
  closed(boundMs: number): Promise<string>;
}

/**
 * A bare TCP connection to the server, for what no HTTP client sends: headers trickled a line at
 * a time, a body that stops half-way, a CONNECT.
 */
export async function rawConnection(url: string): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString('utf8');
  });
  socket.on('error', () => {}); // a reset after the answer is part of what is tested
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    get received() {
      return received;
    },
    async closed(boundMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the server kept the connection open for ${boundMs} ms; got: ${received}`)),
          boundMs,
        );
      });
      try {
        await Promise.race([ended, late]);
      } finally {
        clearTimeout(timer);
        socket.destroy();
      }
      return received;
    },
  };
}

/** The status code and the parsed JSON body of a raw HTTP/1.1 response. */
export function parseRawResponse(text: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: body ? JSON.parse(body) : undefined };
}
