import { z } from 'zod';
import { AppError } from './errors.js';

/**
 * The OpenAI error body. Loose on purpose: upstreams (vLLM, Ollama, OpenRouter) fill `type`,
 * `param` and `code` inconsistently, sometimes with numbers, so only `message` is relied on.
 */
export const errorBodySchema = z.object({
  error: z.looseObject({
    message: z.string(),
    type: z.string().nullish(),
    param: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});

export type ErrorBody = {
  error: { message: string; type: string; param: string | null; code: string | null };
};

const internal: ErrorBody = {
  error: {
    message: 'The server had an error while processing your request.',
    type: 'api_error',
    param: null,
    code: 'internal_error',
  },
};

/** The body and status a client sees for any thrown value; unknown errors never leak. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (err instanceof AppError) {
    return {
      status: err.status,
      headers: err.headers,
      body: { error: { message: err.message, type: err.type, param: err.param, code: err.code } },
    };
  }
  return { status: 500, headers: {}, body: internal };
}
