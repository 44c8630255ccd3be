import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { AppDeps } from './deps.js';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting connections, lets in-flight requests finish (up to `drainMs`), closes deps. */
  close(drainMs?: number): Promise<void>;
}

export async function startServer(deps: AppDeps, port: number, host: string): Promise<RunningServer> {
  const server = createServer({ keepAliveTimeout: 65_000 }, createApp(deps).callback());
  server.headersTimeout = 66_000;
  // Requests Node's HTTP parser refuses before the app sees them (bad bytes in the path or a
  // header, headers too large) still get the JSON error shape.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: {
        message: tooLarge ? 'The request headers are too large.' : 'The request could not be parsed as HTTP.',
        type: 'invalid_request_error',
        param: null,
        code: tooLarge ? 'headers_too_large' : 'bad_request',
      },
    });
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  // While draining, a kept-alive connection is closed as soon as its response is over, so no new
  // request slips in on it and shutdown does not wait for idle clients.
  let draining = false;
  server.on('request', (_req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    res.once('finish', () => {
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    async close(drainMs = 30_000) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), drainMs);
      await closed;
      clearTimeout(deadline);
      await deps.close();
    },
  };
}
