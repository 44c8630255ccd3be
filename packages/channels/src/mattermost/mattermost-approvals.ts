import { createHmac } from 'node:crypto';
import { unauthorized } from '@switchboard/protocol';
import { z } from 'zod';
import { choicePayload, outcomeText, questionText, readChoicePayload, refusalText } from '../approvals/approval.js';
import type { ApprovalSide, DeliveryContext, Inbound } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseWith } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';
import { callMattermost, type MattermostClient, mattermostReplyToSchema, replyRoot } from './mattermost-api.js';

interface MattermostApprovalConfig {
  token: string;
  serverUrl: string;
  botToken: string;
  actionUrl?: string | undefined;
}

/**
 * What a button's `integration.context` holds: the choice, the job's short id and the call's key
 * (`sb`), and our HMAC of it (`sig`). Mattermost posts a click with no signature of its own, and
 * keeps the context on the server (clients never see `integration`), so the HMAC proves that the
 * button, and the choice in it, are ours.
 */
const contextSchema = z.object({ sb: z.string().max(200), sig: z.string().regex(/^[0-9a-f]{64}$/) });

/**
 * A click as the server posts it to `integration.url`: `PostActionIntegrationRequest` of
 * mattermost/mattermost server/public/model/integration_action.go (user_id, user_name,
 * channel_id, channel_name, team_id, team_domain, post_id, trigger_id, type, data_source,
 * context), as JSON. Loose: only what is named is read.
 */
const actionSchema = z.looseObject({
  user_id: z.string().min(1),
  user_name: z.string().optional(),
  channel_id: z.string().min(1),
  post_id: z.string().min(1),
  context: contextSchema,
});

const promptSchema = z.object({ post_id: z.string().min(1) });

/** The HMAC-SHA256 of a button's payload under the hook's token, labelled so it means nothing else. */
function sign(token: string, payload: string): string {
  return createHmac('sha256', token).update(`switchboard-approval ${payload}`).digest('hex');
}

/** True for a body with a `context` object: a click on a message button, not a webhook or a command. */
export function isMattermostAction(fields: unknown): boolean {
  const context = (fields as { context?: unknown } | null)?.context;
  return typeof context === 'object' && context !== null;
}

/**
 * A click on one of our buttons, its context's HMAC checked (in constant time).
 *
 * @throws AppError 401 when the context is not one we signed; 400 when the click lacks a user or post.
 */
export function parseMattermostAction(fields: unknown, token: string): Inbound {
  const context = contextSchema.safeParse((fields as { context?: unknown }).context);
  if (!context.success || !safeEqual(context.data.sig, sign(token, context.data.sb)))
    throw unauthorized('The button is not one this hook made.', 'invalid_signature');
  const action = parseWith(actionSchema, fields);
  const choice = readChoicePayload(action.context.sb);
  if (!choice) return { kind: 'answer', answer: { status: 200, body: {} } };
  return {
    kind: 'click',
    click: {
      ...choice,
      jobId: '',
      user: action.user_id,
      userName: action.user_name ?? action.user_id,
      prompt: { post_id: action.post_id },
      reply: { channel_id: action.channel_id },
    },
  };
}

/**
 * Approve / Deny as message attachment buttons (`props.attachments[].actions`, `type: "button"`,
 * each with an `integration` whose `url` is the hook's `actionUrl` and whose `context` is signed;
 * https://developers.mattermost.com/integrate/plugins/interactive-messages/), posted by the bot in
 * the thread it answers in. The click's own answer does the rest: a decision as `update` (the post
 * rewritten with the outcome and no attachments, so no buttons), a refusal as `ephemeral_text`,
 * which only the clicker sees. A question that times out is edited with the posts patch API.
 */
export const mattermostApprovals: ApprovalSide<MattermostApprovalConfig> = {
  /** Only where the hook says where Mattermost can post a click. */
  offered: (config) => config.actionUrl !== undefined,

  async ask(question, context) {
    const { config, hook } = context;
    if (!config.actionUrl)
      throw new DeliveryError(`Hook '${hook}': Mattermost approval buttons need the hook's actionUrl`, false);
    const where = mattermostReplyToSchema.safeParse(question.message.replyTo);
    if (!where.success) throw new DeliveryError(`Hook '${hook}': the job holds no Mattermost channel`, false);
    const mm = client(context);
    const button = (id: string, name: string, style: string, approve: boolean) => {
      const sb = choicePayload(approve, question);
      return {
        id,
        type: 'button',
        name,
        style,
        integration: { url: config.actionUrl, context: { sb, sig: sign(config.token, sb) } },
      };
    };
    const post = {
      channel_id: where.data.channel_id,
      root_id: await replyRoot(mm, where.data),
      message: questionText(question),
      props: {
        attachments: [{ actions: [button('approve', 'Approve', 'primary', true), button('deny', 'Deny', 'danger', false)] }],
      },
    };
    const reply = await callMattermost(mm, 'create post', 'POST', 'posts', post);
    const created = z.looseObject({ id: z.string().min(1) }).safeParse(reply.json);
    if (!created.success) throw new DeliveryError(`Hook '${hook}': Mattermost create post answered without a post id`, false);
    return { post_id: created.data.id };
  },

  /** `PostActionIntegrationResponse`: `update` for a decision, `ephemeral_text` for a refusal. */
  async answer(_click, outcome) {
    if (outcome.kind === 'refused') return { status: 200, body: { ephemeral_text: refusalText(outcome.reason) } };
    return { status: 200, body: { update: { message: settledText(outcome), props: {} } } };
  },

  async settle(prompt, outcome, context) {
    const { post_id } = promptSchema.parse(prompt);
    const patch = { message: settledText(outcome), props: {} };
    await callMattermost(client(context), 'patch post', 'PUT', `posts/${encodeURIComponent(post_id)}/patch`, patch);
  },
};

/** The question once it is over, in Mattermost's own Markdown; the decider by @name. */
function settledText(outcome: Parameters<typeof outcomeText>[0]): string {
  return outcomeText(outcome, outcome.kind === 'decided' ? `@${outcome.byName ?? outcome.by}` : '', (markdown) => markdown);
}

const client = ({ hook, config, http }: DeliveryContext<MattermostApprovalConfig>): MattermostClient => ({
  hook,
  serverUrl: config.serverUrl,
  botToken: config.botToken,
  http,
});
