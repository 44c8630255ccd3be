import type { ServerResponse } from 'node:http';
import { type Handler, type LocalServer, type RecordedRequest, sendJson, startLocalServer } from './http-server.js';
import { describeBytes } from './openai-upstream.js';

/**
 * A local server speaking Anthropic's Messages API as documented: `POST /v1/messages` answered
 * with a message, or with the event stream (`message_start` … `message_stop`). By default the
 * text is `Claude says: <last user text>`; a forced tool (`tool_choice: {type: "tool"}`) is
 * answered with a `tool_use` block whose input is `{"echo": <last user text>}`.
 */
export function anthropicLastUserText(req: RecordedRequest): string {
  const body = req.json as { messages?: { role: string; content: unknown }[] } | undefined;
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (typeof last?.content === 'string') return last.content;
  const blocks = Array.isArray(last?.content) ? (last.content as { type?: string; text?: string }[]) : [];
  return blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}

/**
 * The images of the last user message as Claude receives them: `image` blocks with a `base64`
 * source (https://docs.anthropic.com/en/docs/build-with-claude/vision), described as
 * `describeBytes` does, so a test can check the model got exactly the file's bytes.
 */
export function anthropicImagesSeen(req: RecordedRequest): string[] {
  const body = req.json as { messages?: { role: string; content: unknown }[] } | undefined;
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!Array.isArray(last?.content)) return [];
  return (last.content as { type?: string; source?: { type?: string; media_type?: string; data?: string } }[]).flatMap(
    (block) => {
      if (block.type !== 'image') return [];
      if (block.source?.type !== 'base64') return [`not base64: ${block.source?.type}`];
      return [describeBytes(block.source.media_type ?? '?', Buffer.from(block.source.data ?? '', 'base64'))];
    },
  );
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export function anthropicMessage(model: string, content: Block[], stopReason = 'end_turn') {
  return {
    id: 'msg_01test',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 13, output_tokens: 5 },
  };
}

function writeEvent(res: ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/** Streams `message` as Messages API events: text in pieces, tool input as partial JSON. */
export function streamAnthropicMessage(res: ServerResponse, message: ReturnType<typeof anthropicMessage>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  writeEvent(res, 'message_start', {
    message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 13, output_tokens: 1 } },
  });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      writeEvent(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of block.text.match(/.{1,5}/gs) ?? []) {
        writeEvent(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      }
    } else {
      writeEvent(res, 'content_block_start', { index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      for (const piece of json.match(/.{1,4}/gs) ?? []) {
        writeEvent(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    writeEvent(res, 'content_block_stop', { index });
  });
  writeEvent(res, 'message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  writeEvent(res, 'message_stop', {});
  res.end();
}

export const defaultAnthropicHandler: Handler = (req, res) => {
  const body = req.json as { model?: string; stream?: boolean; tool_choice?: { type?: string; name?: string } } | undefined;
  if (!req.url.startsWith('/v1/messages'))
    return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
  const model = body?.model ?? 'unknown';
  const text = anthropicLastUserText(req);
  const forced = body?.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
  const message = forced
    ? anthropicMessage(model, [{ type: 'tool_use', id: 'toolu_01test', name: forced, input: { echo: text } }], 'tool_use')
    : anthropicMessage(model, [{ type: 'text', text: `Claude says: ${text}` }]);
  if (body?.stream) return streamAnthropicMessage(res, message);
  sendJson(res, 200, message);
};

export function startAnthropicUpstream(handler: Handler = defaultAnthropicHandler): Promise<LocalServer> {
  return startLocalServer(handler);
}
