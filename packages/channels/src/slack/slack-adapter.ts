import type { SlackHookConfig } from '@switchboard/config';
import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import { DeliveryError, type DeliveryMeta, type Inbound, type InboundMessage, type InboundRequest } from '../channel.js';
import { joinUrl, redact, statusFailure } from '../http.js';
import { parseJsonBody } from '../inbound.js';
import { PlatformAdapter } from '../platform-adapter.js';
import { parseSlackEvent } from './parse-slack-event.js';
import { checkSlackResult, slackErrorCode } from './slack-api-result.js';
import { verifySlackSignature } from './verify-slack-signature.js';

/** Slack truncates `text` beyond 40,000 characters, so longer replies go out as several messages. */
export const SLACK_TEXT_LIMIT = 40_000;

/** What `parseSlackEvent` stored in `replyTo`; checked again because it comes back from the job store. */
const slackReplyToSchema = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1) });

/** Slack through the Events API: signed requests in, `chat.postMessage` in the message's thread out. */
export class SlackAdapter extends PlatformAdapter<SlackHookConfig> {
  readonly type = 'slack' as const;
  protected readonly textLimit = SLACK_TEXT_LIMIT;
  readonly #label = `Hook '${this.name}': Slack chat.postMessage`;

  receive(request: InboundRequest): Inbound {
    verifySlackSignature(request, this.config.signingSecret);
    return parseSlackEvent(parseJsonBody(request.rawBody), { botUserId: this.config.botUserId });
  }

  async deliverPart(message: InboundMessage, part: string, _index: number, _meta: DeliveryMeta): Promise<void> {
    const target = slackReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`${this.#label}: the job holds no Slack channel and thread`, false);
    const reply = await this.http.send({
      label: this.#label,
      method: 'POST',
      url: joinUrl(this.config.apiUrl, 'chat.postMessage'),
      headers: { authorization: `Bearer ${this.config.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: { channel: target.data.channel, text: part, thread_ts: target.data.thread_ts },
    });
    const secrets = [this.config.botToken, this.config.signingSecret];
    const retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
    if (reply.status < 200 || reply.status >= 300) {
      throw statusFailure(this.#label, reply.status, redact(slackErrorCode(reply.json) ?? reply.text, secrets), retryAfterMs);
    }
    checkSlackResult(this.#label, reply.json, secrets, retryAfterMs);
  }
}
