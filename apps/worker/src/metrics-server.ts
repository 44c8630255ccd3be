import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@switchboard/logger';
import type { Metrics } from '@switchboard/metrics';
import { adminAccess, notFound, toErrorResponse } from '@switchboard/protocol';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  port: number;
  host: string;
  adminKeys: readonly string[];
  apiKeysSet: boolean;
  logger: Logger;
}

/**
 * The worker's own Prometheus scrape target: `GET /metrics` only, behind the same admin-key rule
 * as the API's operator routes; anything else is a 404 in the OpenAI error shape.
 */
export async function startMetricsServer(metrics: Metrics, options: MetricsServerOptions): Promise<MetricsServer> {
  const check = adminAccess(options.adminKeys, options.apiKeysSet);
  const server: Server = createServer((req, res) => {
    const answer = (status: number, headers: Record<string, string>, body: string) => {
      res.writeHead(status, { ...headers, 'X-Content-Type-Options': 'nosniff' });
      res.end(body);
    };
    const fail = (err: unknown) => {
      const { status, headers, body } = toErrorResponse(err);
      answer(status, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') return fail(notFound(`Invalid URL (${req.method} ${path}).`, 'unknown_url'));
    const refused = check(req.headers.authorization);
    if (refused) return fail(refused);
    metrics.expose().then(
      ({ contentType, text }) => answer(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }, text),
      (err: unknown) => {
        options.logger.warn('metrics could not be collected', { error: (err as Error).message });
        fail(err);
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
