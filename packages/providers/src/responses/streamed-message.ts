import {
  itemId,
  type ResponseMessageItem,
  type ResponseOutputText,
  type ResponseRefusal,
  type ResponseStreamEvent,
} from '@switchboard/protocol';

/** Makes one numbered event of a Response's stream (its owner keeps the count). */
export type MakeEvent = (type: string, fields: Record<string, unknown>) => ResponseStreamEvent;

/**
 * A message item as it streams. In OpenAI's Responses API a message's content is a list of parts
 * — its text (`output_text`) and a refusal (`refusal`) — each added at its first delta with its
 * own `content_index` (`response.content_part.added`), grown by `response.output_text.delta` or
 * `response.refusal.delta`, and closed in order at the end (`response.output_text.done` /
 * `response.refusal.done`, then `response.content_part.done`). A refusal that comes after text is
 * the message's second part. The item holds each part as it grows.
 */
export class StreamedMessage {
  readonly item: ResponseMessageItem = {
    id: itemId('msg'),
    type: 'message',
    status: 'in_progress',
    role: 'assistant',
    content: [],
  };
  private textPart: ResponseOutputText | null = null;
  private refusalPart: ResponseRefusal | null = null;

  constructor(readonly outputIndex: number) {}

  /** `response.output_item.added`, the item without content yet. */
  added(event: MakeEvent): ResponseStreamEvent[] {
    return [event('response.output_item.added', { output_index: this.outputIndex, item: structuredClone(this.item) })];
  }

  text(delta: string, event: MakeEvent): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    this.textPart ??= this.open(emptyText(), out, event);
    this.textPart.text += delta;
    out.push(event('response.output_text.delta', { ...this.at(this.textPart), delta, logprobs: [] }));
    return out;
  }

  refusal(delta: string, event: MakeEvent): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    this.refusalPart ??= this.open({ type: 'refusal', refusal: '' }, out, event);
    this.refusalPart.refusal += delta;
    out.push(event('response.refusal.delta', { ...this.at(this.refusalPart), delta }));
    return out;
  }

  /**
   * The parts' closing events, in order (a message with none gets an empty output_text part
   * first); the item takes `status`. The caller sends `response.output_item.done` after them.
   */
  close(status: ResponseMessageItem['status'], event: MakeEvent): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    if (this.item.content.length === 0) this.textPart = this.open(emptyText(), out, event);
    this.item.status = status;
    for (const part of this.item.content) {
      const at = this.at(part);
      if (part.type === 'output_text') out.push(event('response.output_text.done', { ...at, text: part.text, logprobs: [] }));
      else out.push(event('response.refusal.done', { ...at, refusal: part.refusal }));
      out.push(event('response.content_part.done', { ...at, part: structuredClone(part) }));
    }
    return out;
  }

  private open<P extends ResponseOutputText | ResponseRefusal>(part: P, out: ResponseStreamEvent[], event: MakeEvent): P {
    out.push(event('response.content_part.added', { ...this.at(part, this.item.content.length), part: structuredClone(part) }));
    this.item.content.push(part);
    return part;
  }

  private at(part: ResponseOutputText | ResponseRefusal, index = this.item.content.indexOf(part)) {
    return { item_id: this.item.id, output_index: this.outputIndex, content_index: index };
  }
}

const emptyText = (): ResponseOutputText => ({ type: 'output_text', text: '', annotations: [], logprobs: [] });
