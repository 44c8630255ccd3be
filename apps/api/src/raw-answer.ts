import { STATUS_CODES } from 'node:http';

/**
 * A whole HTTP/1.1 response with an OpenAI-shaped error body, written straight to a socket for
 * what never reaches Koa (a request Node's parser refused, a CONNECT, a request cut for
 * slowness), and closing the connection.
 */
export function rawErrorAnswer(status: number, code: string, message: string, headers: Record<string, string> = {}): string {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extra.join('')}Connection: close\r\n\r\n${body}`
  );
}
