import type {
  ResponseMcpListToolsItem,
  ResponseMessageItem,
  ResponseObject,
  ResponseOutputItem,
  ResponseStreamEvent,
  Usage,
} from '@switchboard/protocol';
import { StreamedMessage, toResponseUsage } from '@switchboard/providers';

/**
 * The Response of a /v1/responses answer with `mcp` tools (services/responses-mcp.ts) as it grows,
 * and its events, numbered from 0 (each holds its own copies).
 */
export class McpEvents {
  private sequence = 0;
  private readonly output: ResponseOutputItem[] = [];
  /** The message streaming now (opened at its first delta of text or refusal). */
  private streaming: StreamedMessage | null = null;

  constructor(readonly shell: ResponseObject) {}

  start(): ResponseStreamEvent[] {
    return [
      this.event('response.created', { response: this.snapshot() }),
      this.event('response.in_progress', { response: this.snapshot() }),
    ];
  }

  add(item: ResponseOutputItem): number {
    this.output.push(item);
    return this.output.length - 1;
  }

  /** A server's tool list: added (no tools yet), in progress, completed or failed, done. */
  listed(list: ResponseMcpListToolsItem): ResponseStreamEvent[] {
    const index = this.add(list);
    const at = { item_id: list.id, output_index: index };
    return [
      this.event('response.output_item.added', { output_index: index, item: { ...list, tools: [], error: null } }),
      this.event('response.mcp_list_tools.in_progress', at),
      this.event(list.error ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', at),
      this.event('response.output_item.done', { output_index: index, item: structuredClone(list) }),
    ];
  }

  /** A message or function call known whole: the events a streamed one ends with, at once. */
  whole(item: ResponseOutputItem): ResponseStreamEvent[] {
    const index = this.add(item);
    const at = { item_id: item.id, output_index: index };
    const out: ResponseStreamEvent[] = [];
    if (item.type === 'message') {
      out.push(this.event('response.output_item.added', { output_index: index, item: { ...item, content: [] } }));
      for (const [content_index, part] of item.content.entries()) {
        const empty = part.type === 'output_text' ? { ...part, text: '' } : { ...part, refusal: '' };
        out.push(this.event('response.content_part.added', { ...at, content_index, part: empty }));
        if (part.type === 'output_text') {
          out.push(this.event('response.output_text.delta', { ...at, content_index, delta: part.text, logprobs: [] }));
          out.push(this.event('response.output_text.done', { ...at, content_index, text: part.text, logprobs: [] }));
        } else {
          out.push(this.event('response.refusal.delta', { ...at, content_index, delta: part.refusal }));
          out.push(this.event('response.refusal.done', { ...at, content_index, refusal: part.refusal }));
        }
        out.push(this.event('response.content_part.done', { ...at, content_index, part: structuredClone(part) }));
      }
    } else if (item.type === 'function_call') {
      out.push(this.event('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } }));
      out.push(this.event('response.function_call_arguments.delta', { ...at, delta: item.arguments }));
      out.push(this.event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }));
    }
    out.push(this.event('response.output_item.done', { output_index: index, item: structuredClone(item) }));
    return out;
  }

  /** A piece of the model's text as it streams: the first opens a message item and its output_text part. */
  text(delta: string): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    out.push(...(this.streaming ?? this.openStreaming(out)).text(delta, this.event));
    return out;
  }

  /** A piece of the model's refusal as it streams: a refusal part of the message (after its text, if any). */
  refusal(delta: string): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    out.push(...(this.streaming ?? this.openStreaming(out)).refusal(delta, this.event));
    return out;
  }

  /** The streamed message is over: its closing events (none when nothing streamed). */
  textDone(status: ResponseMessageItem['status']): ResponseStreamEvent[] {
    const message = this.streaming;
    if (!message) return [];
    this.streaming = null;
    return [
      ...message.close(status, this.event),
      this.event('response.output_item.done', { output_index: message.outputIndex, item: structuredClone(message.item) }),
    ];
  }

  private openStreaming(out: ResponseStreamEvent[]): StreamedMessage {
    const message = new StreamedMessage(this.output.length);
    this.add(message.item);
    this.streaming = message;
    out.push(...message.added(this.event));
    return message;
  }

  /** The final Response: the last answer's status, every item, usage summed over the model calls. */
  finish(answer: ResponseObject, usage: Usage): ResponseStreamEvent[] {
    const { status, incomplete_details } = answer;
    const response = { ...this.snapshot(), status, incomplete_details, usage: toResponseUsage(usage) };
    return [this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response })];
  }

  fail(error: { code: string | null; message: string }): ResponseStreamEvent[] {
    const failure = { code: error.code ?? 'server_error', message: error.message };
    return [
      this.event('error', { code: error.code, message: error.message, param: null }),
      this.event('response.failed', { response: { ...this.snapshot(), status: 'failed', error: failure } }),
    ];
  }

  readonly event = (type: string, fields: Record<string, unknown>): ResponseStreamEvent => ({
    type,
    sequence_number: this.sequence++,
    ...fields,
  });

  private snapshot(): ResponseObject {
    return { ...this.shell, output: structuredClone(this.output) };
  }
}
