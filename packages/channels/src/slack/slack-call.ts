import { joinUrl } from '@switchboard/http';
import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import type { DeliveryContext } from '../definition.js';
import { redact, statusFailure } from '../http.js';
import { checkSlackResult, slackErrorCode } from './slack-api-result.js';

/** What a Web API call needs of a Slack hook's config. */
export interface SlackCallConfig {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
}

/**
 * One Web API call with a JSON body and the bot token as a Bearer header
 * (https://docs.slack.dev/apis/web-api/#posting_json); its answer's JSON when Slack says `ok`.
 * Throws `DeliveryError`: HTTP failures by status (429 with Retry-After), `{ok: false}` by Slack's error.
 */
export async function callSlack(
  { hook, config, http }: DeliveryContext<SlackCallConfig>,
  method: string,
  body: Record<string, unknown>,
): Promise<unknown> {
  const label = `Hook '${hook}': Slack ${method}`;
  const reply = await http.send({
    label,
    method: 'POST',
    url: joinUrl(config.apiUrl, method),
    headers: { authorization: `Bearer ${config.botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body,
  });
  const secrets = [config.botToken, config.signingSecret];
  const retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
  if (reply.status < 200 || reply.status >= 300) {
    throw statusFailure(label, reply.status, redact(slackErrorCode(reply.json) ?? reply.text, secrets), retryAfterMs);
  }
  checkSlackResult(label, reply.json, secrets, retryAfterMs);
  return reply.json;
}

/** What `parseSlackEvent` stored in `replyTo`; checked again because it comes back from the job store. */
export const slackReplyToSchema = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1).optional() });
