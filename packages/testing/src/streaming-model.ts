import type { Handler, RecordedRequest } from './http-server.js';
import { sendJson } from './http-server.js';
import { chunkBody, completionBody, lastUserText, openSse, writeSse } from './openai-upstream.js';

/** How the model answers one prompt. */
export interface StreamScript {
  text: string;
  /** Silence before the first token (a whole answer: before it), ms (the model "thinking"). @defaultValue 0 */
  firstTokenMs?: number;
  /** Silence between chunks, ms. @defaultValue 20 */
  chunkDelayMs?: number;
  /** Characters per chunk (a token is a few). @defaultValue 8 */
  chunkChars?: number;
  /** The stream stops after this many chunks until `hold` resolves (or the request is cut). */
  holdAfter?: number;
  hold?: Promise<void>;
}

/**
 * An OpenAI-compatible model that streams its answer the way a real one does: a role chunk, a
 * pause while it thinks, then the text a few characters at a time with pauses between, then the
 * finish chunk and `[DONE]`. What it says to each prompt is scripted; non-streamed requests get
 * the whole text at once, after the same pause.
 */
export function streamingModel(script: (prompt: string, req: RecordedRequest) => StreamScript): Handler {
  return async (req, res) => {
    const body = req.json as { model?: string; stream?: boolean } | undefined;
    const model = body?.model ?? 'unknown';
    const plan = script(lastUserText(req), req);
    if (!body?.stream) {
      await sleep(plan.firstTokenMs ?? 0);
      return sendJson(res, 200, completionBody(model, plan.text));
    }
    let closed = false;
    res.once('close', () => {
      closed = true;
    });
    openSse(res);
    writeSse(res, chunkBody(model, { role: 'assistant', content: '' }));
    await sleep(plan.firstTokenMs ?? 0);
    const size = plan.chunkChars ?? 8;
    for (let at = 0, n = 0; at < plan.text.length && !closed; at += size, n++) {
      if (n > 0) await sleep(plan.chunkDelayMs ?? 20);
      if (plan.hold && n === plan.holdAfter) await plan.hold;
      if (!closed) writeSse(res, chunkBody(model, { content: plan.text.slice(at, at + size) }));
    }
    if (closed) return;
    writeSse(res, chunkBody(model, {}, 'stop'));
    writeSse(res, '[DONE]');
    res.end();
  };
}

const sleep = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
