import type { Socket } from 'node:net';

/**
 * Connections the server cut for sending their request too slowly (`limits.headersTimeoutMs`,
 * `limits.bodyTimeoutMs`), so the request's log line says 408 rather than blaming the client
 * for hanging up.
 */
const timedOut = new WeakSet<Socket>();

export function markTimedOut(socket: Socket): void {
  timedOut.add(socket);
}

export function requestTimedOut(socket: Socket | undefined): boolean {
  return socket !== undefined && timedOut.has(socket);
}
