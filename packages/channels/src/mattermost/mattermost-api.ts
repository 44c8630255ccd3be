import { joinUrl } from '@switchboard/http';
import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import type { CredentialCheck } from '../credential-check.js';
import { DeliveryError } from '../delivery-error.js';
import { type DeliveryClient, type JsonReply, redact, statusFailure } from '../http.js';

export interface MattermostClient {
  hook: string;
  serverUrl: string;
  botToken: string;
  http: DeliveryClient;
}

/** Mattermost's error body: `{id, message, status_code, request_id}`. Loose. */
const appErrorSchema = z.looseObject({ id: z.string().optional(), message: z.string().optional() });

/** One REST API v4 call with the bot token; any answer but a 2xx becomes its `DeliveryError`. */
export async function callMattermost(
  client: MattermostClient,
  what: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
) {
  const label = `Hook '${client.hook}': Mattermost ${what}`;
  const reply = await client.http.send({
    label,
    method,
    url: joinUrl(client.serverUrl, `api/v4/${path}`),
    headers: { authorization: `Bearer ${client.botToken}` },
    ...(body === undefined ? {} : { body }),
  });
  if (reply.status < 200 || reply.status >= 300) throw mattermostFailure(label, reply, client.botToken);
  return reply;
}

function mattermostFailure(label: string, reply: JsonReply, botToken: string): DeliveryError {
  const parsed = appErrorSchema.safeParse(reply.json);
  const detail = redact(parsed.success ? (parsed.data.message ?? parsed.data.id ?? reply.text) : reply.text, [botToken]);
  return statusFailure(label, reply.status, detail, parseRetryAfter(reply.headers['retry-after']));
}

/** What `parseMattermostRequest` stored in `replyTo`; checked again because it comes back from the job store. */
export const mattermostReplyToSchema = z.object({
  channel_id: z.string().min(1),
  post_id: z.string().min(1).optional(),
  root_id: z.string().min(1).optional(),
});

const postSchema = z.looseObject({ id: z.string().min(1), root_id: z.string().default('') });

/** The thread a post belongs to: its root's id (a root post is its own). */
export async function threadOf(client: MattermostClient, postId: string): Promise<string> {
  const reply = await callMattermost(client, 'GET post', 'GET', `posts/${encodeURIComponent(postId)}`);
  const post = postSchema.safeParse(reply.json);
  if (!post.success) throw new DeliveryError(`Hook '${client.hook}': Mattermost GET post returned an unexpected answer`, false);
  return post.data.root_id || post.data.id;
}

/** The root a reply names: the command's thread, else the thread of the post it answers (an outgoing webhook names the post, not its thread; a reply to a reply must name the root). */
export async function replyRoot(
  client: MattermostClient,
  target: { post_id?: string | undefined; root_id?: string | undefined },
) {
  return target.root_id ?? (target.post_id ? await threadOf(client, target.post_id) : '');
}

/** `GET /users/me`: the bot token is valid when it answers the bot's user. */
export async function judgeMattermostMe(client: MattermostClient): Promise<CredentialCheck> {
  try {
    await callMattermost(client, 'GET users/me', 'GET', 'users/me');
    return { connected: true };
  } catch (err) {
    if (err instanceof DeliveryError) return { connected: false, reason: err.message };
    throw err;
  }
}
