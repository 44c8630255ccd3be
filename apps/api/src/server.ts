import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createApp } from './app.js';
import type { AppDeps } from './deps.js';
import { rawErrorAnswer } from './raw-answer.js';
import { markTimedOut } from './request-timeouts.js';

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting connections, closes idle keep-alive connections at once, lets in-flight
   * requests and streams finish (up to `drainMs`, then they are cut), and closes the deps, each
   * step bounded.
   */
  close(drainMs?: number): Promise<void>;
}

/**
 * Connections the kernel may hold until the process accepts them (it clamps this to
 * `net.core.somaxconn`). Node's default is 511: when a thousand clients connect at once (a burst
 * of streams), the rest of their SYNs are dropped and each retried a whole second later (then 3 s),
 * which was most of what such a burst added to the time to first byte (issue 23).
 */
export const LISTEN_BACKLOG = 4096;

export async function startServer(deps: AppDeps, port: number, host: string): Promise<RunningServer> {
  const { headersTimeoutMs, bodyTimeoutMs } = deps.settings.config.limits;
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      // A client must send its headers, and its whole request, in this long (a slowloris or a
      // stalled body gets 408); Node checks every `connectionsCheckingInterval`, so keep it short.
      headersTimeout: headersTimeoutMs,
      requestTimeout: bodyTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
    },
    createApp(deps).callback(),
  );
  // Requests Node's HTTP parser refuses or cuts before the app answers them (bad bytes in the
  // path or a header, headers too large, too slow) still get the JSON error shape.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') markTimedOut(socket);
    if (!socket.writable || socket.bytesWritten > 0) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(err.code));
  });
  // CONNECT asks for a tunnel, which Node hands over as a bare socket; without this it was closed
  // with no answer at all.
  server.on('connect', (_req, socket: Socket) => {
    socket.on('error', () => {});
    socket.end(rawErrorAnswer(405, 'method_not_allowed', 'Method CONNECT is not allowed here.', { Allow: 'GET, POST' }));
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
    server.listen(port, host, LISTEN_BACKLOG, () => resolve());
  });
  deps.channelChecks.start();
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

function clientErrorAnswer(code: string | undefined): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return rawErrorAnswer(408, 'request_timeout', 'The request was not received in time.');
  }
  if (code === 'HPE_HEADER_OVERFLOW') return rawErrorAnswer(431, 'headers_too_large', 'The request headers are too large.');
  return rawErrorAnswer(400, 'bad_request', 'The request could not be parsed as HTTP.');
}
