import {
  type ChatCompletionChunk,
  itemId,
  type ResponseFunctionCallItem,
  type ResponseObject,
  type ResponseStreamEvent,
  type Usage,
} from '@switchboard/protocol';
import { z } from 'zod';
import { statusOf, toResponseUsage } from './response-shell.js';
import { StreamedMessage } from './streamed-message.js';

const toolCallDeltas = z.array(
  z.looseObject({
    index: z.int().nonnegative(),
    id: z.string().nullish(),
    function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
  }),
);

type OpenItem =
  | { kind: 'message'; item: StreamedMessage['item']; message: StreamedMessage }
  | { kind: 'call'; item: ResponseFunctionCallItem };

/**
 * Chat completion chunks → the Responses event stream. The text or a refusal opens a message item
 * at its first delta (an output_text part, a refusal part: both when both come); each tool call
 * opens a function_call item. Items are
 * closed together at the end, in output order, then `response.completed` (or
 * `response.incomplete`) carries the whole Response with usage. Every event numbers itself
 * (`sequence_number`); each one holds its own copies, so events may be kept and sent later.
 */
export class ResponseEventStream {
  private sequence = 0;
  private readonly items: OpenItem[] = [];
  private readonly calls = new Map<number, OpenItem & { kind: 'call' }>();
  private message: StreamedMessage | undefined;
  private finishReason: string | null = null;
  private usage: Usage | null = null;

  constructor(private readonly shell: ResponseObject) {}

  start(): ResponseStreamEvent[] {
    return [
      this.event('response.created', { response: this.snapshot() }),
      this.event('response.in_progress', { response: this.snapshot() }),
    ];
  }

  push(chunk: ChatCompletionChunk): ResponseStreamEvent[] {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return [];
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const out: ResponseStreamEvent[] = [];
    const { content, refusal, tool_calls } = choice.delta;
    if (typeof content === 'string' && content) out.push(...(this.message ?? this.openMessage(out)).text(content, this.event));
    if (typeof refusal === 'string' && refusal) out.push(...(this.message ?? this.openMessage(out)).refusal(refusal, this.event));
    const calls = toolCallDeltas.safeParse(tool_calls ?? []);
    for (const delta of calls.success ? calls.data : []) {
      let call = this.calls.get(delta.index);
      if (!call) {
        const item: ResponseFunctionCallItem = {
          id: itemId('fc'),
          type: 'function_call',
          status: 'in_progress',
          call_id: delta.id ?? `call_${itemId('fc').slice(3)}`,
          name: delta.function?.name ?? '',
          arguments: '',
        };
        call = { kind: 'call', item };
        this.calls.set(delta.index, call);
        this.items.push(call);
        out.push(this.event('response.output_item.added', { output_index: this.items.length - 1, item: { ...item } }));
      }
      const piece = delta.function?.arguments;
      if (piece) {
        call.item.arguments += piece;
        out.push(this.event('response.function_call_arguments.delta', { ...this.at(call), delta: piece }));
      }
    }
    return out;
  }

  /** The end of a complete answer: every item closed, then the final Response. */
  finish(): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    if (this.items.length === 0) this.openMessage(out);
    const { status, incomplete_details } = statusOf(this.finishReason);
    for (const open of this.items) {
      const at = this.at(open);
      if (open.kind === 'message') {
        out.push(...open.message.close(status === 'completed' ? 'completed' : 'incomplete', this.event));
      } else {
        open.item.status = 'completed';
        const { name, arguments: args } = open.item;
        out.push(this.event('response.function_call_arguments.done', { ...at, name, arguments: args }));
      }
      out.push(this.event('response.output_item.done', { output_index: at.output_index, item: structuredClone(open.item) }));
    }
    const response = { ...this.snapshot(), status, incomplete_details, usage: this.usage ? toResponseUsage(this.usage) : null };
    out.push(this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
    return out;
  }

  /** A failure after the stream began: an `error` event, then `response.failed` with the Response so far. */
  fail(error: { code: string | null; message: string }): ResponseStreamEvent[] {
    const failure = { code: error.code ?? 'server_error', message: error.message };
    return [
      this.event('error', { code: error.code, message: error.message, param: null }),
      this.event('response.failed', { response: { ...this.snapshot(), status: 'failed', error: failure } }),
    ];
  }

  private openMessage(out: ResponseStreamEvent[]): StreamedMessage {
    const message = new StreamedMessage(this.items.length);
    this.message = message;
    this.items.push({ kind: 'message', item: message.item, message });
    out.push(...message.added(this.event));
    return message;
  }

  private at(open: OpenItem): { item_id: string; output_index: number } {
    return { item_id: open.item.id, output_index: this.items.indexOf(open) };
  }

  /** The Response as it stands, with copies of the items (later events must not change it). */
  private snapshot(): ResponseObject {
    return { ...this.shell, output: this.items.map((open) => structuredClone(open.item)) };
  }

  private readonly event = (type: string, fields: Record<string, unknown>): ResponseStreamEvent => ({
    type,
    sequence_number: this.sequence++,
    ...fields,
  });
}
