import { type ChatCompletionRequest, messageText } from '@switchboard/protocol';
import { decode, encode } from 'gpt-tokenizer';

/**
 * The reply of `local/echo`: built only from the last user message, so tests can predict it.
 * `max_tokens` (or `max_completion_tokens`) cuts it to that many tokens, with finish_reason
 * `length`, as a real model would.
 */
export function echoReply(request: ChatCompletionRequest): { tokens: number[]; finishReason: 'stop' | 'length' } {
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const text = `Echo: ${lastUser ? messageText(lastUser.content) : ''}`;
  const tokens = encode(text);
  const limit = request.max_completion_tokens ?? request.max_tokens;
  if (limit && tokens.length > limit) return { tokens: tokens.slice(0, limit), finishReason: 'length' };
  return { tokens, finishReason: 'stop' };
}

/** Stream pieces: about four tokens each, decoded back to text. */
export function echoPieces(tokens: number[], tokensPerPiece = 4): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += tokensPerPiece) pieces.push(decode(tokens.slice(i, i + tokensPerPiece)));
  return pieces;
}

export { decode as decodeTokens };
