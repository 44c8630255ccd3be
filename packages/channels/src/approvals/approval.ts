import type { InboundMessage } from '@switchboard/protocol';

/**
 * A person's yes or no in the chat (`hooks.<name>.approve`): the worker asks with buttons before a
 * tool call that needs approval; a click comes back to `POST /hooks/:name`, verified as the
 * channel verifies every request, and the API records the decision once and answers the click.
 * A channel that can show buttons adds an `approvals` side (`ApprovalSide`, definition.ts);
 * without one, its hooks' calls are decided with `POST /hooks/:name/jobs/:id/approval` alone.
 */

/** What the person is asked: the call the job waits on, and the message that led to it. */
export interface ApprovalQuestion {
  /** The job's id, short: the hook's own prefix left out (Telegram's callback_data holds 64 bytes). */
  jobRef: string;
  /** `<step>:<i>`: which call of the job's tool loop. */
  key: string;
  tool: string;
  arguments: string;
  /** Who may decide (platform user ids). */
  approvers: readonly string[];
  /** Unix ms when the call is denied for want of a decision. */
  until: number;
  /** The message being answered: the question goes where its reply will go. */
  message: InboundMessage;
}

/** A reference to a posted message (Slack `{channel, ts}`, Telegram `{chat_id, message_id}`), kept in the job. */
export type PromptRef = Record<string, string | number>;

/** A click on Approve or Deny, as the channel read it from a verified request. */
export interface ApprovalClick {
  /** As the question gave it; the hook turns it back into the job's id (`jobId`). */
  jobRef: string;
  jobId: string;
  key: string;
  approve: boolean;
  /** The platform user id of whoever clicked. */
  user: string;
  /** How the channel names them in the edited message. */
  userName: string;
  /** The message that holds the buttons. */
  prompt: PromptRef;
  /** What the channel needs to answer only the clicker (Slack's channel and thread, Telegram's callback query id). */
  reply: PromptRef;
}

/** What became of a click, or of a question nobody answered in time. */
export type ApprovalOutcome =
  /** Decided (`by`: the person's platform user id, `byName` how the platform names them): the question is edited to say so. */
  | { kind: 'decided'; approve: boolean; by: string; byName?: string | undefined; tool: string; arguments: string }
  /** The wait ran out first: the call was denied. */
  | { kind: 'expired'; tool: string; arguments: string }
  /** The click changes nothing; only the clicker is told why. */
  | { kind: 'refused'; reason: 'not_approver' | 'not_waiting' | 'expired' };

/** How a question ended: decided (by whom, by name) or expired. */
export type SettledOutcome = ApprovalOutcome & { kind: 'decided' | 'expired' };

/** How many characters of a call's arguments a question shows. */
const SHOWN_ARGUMENTS = 500;

/** The question in Markdown (each channel renders it as its replies are rendered). */
export function questionText(question: Pick<ApprovalQuestion, 'tool' | 'arguments'>): string {
  return `May I run **${question.tool}** with \`${shown(question.arguments)}\`?`;
}

/**
 * The question once it is over: who decided what, or that its time ran out. `render` turns the
 * Markdown into the platform's markup; `name` is already markup (a Slack mention `<@U…>` would not
 * survive rendering).
 */
export function outcomeText(outcome: SettledOutcome, name: string, render: (markdown: string) => string): string {
  const call = `**${outcome.tool}** with \`${shown(outcome.arguments)}\``;
  if (outcome.kind === 'expired') return `⌛ ${render(`Not approved in time: ${call} was not run.`)}`;
  return outcome.approve
    ? `✅ ${name} ${render(`approved ${call}.`)}`
    : `❌ ${name} ${render(`denied ${call}; it was not run.`)}`;
}

/** What only the clicker is told when their click changes nothing. */
export function refusalText(reason: (ApprovalOutcome & { kind: 'refused' })['reason']): string {
  if (reason === 'not_approver') return 'Only the person who asked, or an approver of this bot, may decide on this call.';
  if (reason === 'expired') return 'Too late: this call was denied when its time ran out.';
  return 'This call is not waiting for a decision any more.';
}

function shown(args: string): string {
  const flat = args.replace(/`/g, "'").replace(/\s+/g, ' ');
  return flat.length > SHOWN_ARGUMENTS ? `${flat.slice(0, SHOWN_ARGUMENTS)}…` : flat;
}

/** A platform message's job id after the hook's prefix: 32 hex, and its shard (`~<n>`) when there are several. */
const HASHED_REF = /^[0-9a-f]{32}(~\d{1,4})?$/;

/** The job's id without the hook's prefix (`<hook>-<32 hex>[~<shard>]` for platform messages), else whole. */
export function jobRefOf(hook: string, jobId: string): string {
  const prefix = `${hook}-`;
  const rest = jobId.startsWith(prefix) ? jobId.slice(prefix.length) : '';
  return HASHED_REF.test(rest) ? rest : jobId;
}

/** The job's id a reference stands for (see `jobRefOf`). */
export function jobIdOf(hook: string, jobRef: string): string {
  return HASHED_REF.test(jobRef) ? `${hook}-${jobRef}` : jobRef;
}

/** `<jobRef> <key>`: what a button carries (Slack's `value`, inside Telegram's `callback_data`). */
export function buttonPayload(question: Pick<ApprovalQuestion, 'jobRef' | 'key'>): string {
  return `${question.jobRef} ${question.key}`;
}

/** The job reference and call key a button carried, or null when it is not one of ours. */
export function readButtonPayload(value: string): { jobRef: string; key: string } | null {
  const match = /^([A-Za-z0-9_~-]{1,64}) (\d{1,3}:\d{1,4})$/.exec(value);
  return match ? { jobRef: match[1]!, key: match[2]! } : null;
}

/** `y|n <jobRef> <key>`: a button that carries its choice too (Telegram's callback_data, Discord's custom_id). */
export function choicePayload(approve: boolean, question: Pick<ApprovalQuestion, 'jobRef' | 'key'>): string {
  return `${approve ? 'y' : 'n'} ${buttonPayload(question)}`;
}

/** What a `choicePayload` button carried, or null when it is not one of ours. */
export function readChoicePayload(value: string): Pick<ApprovalClick, 'jobRef' | 'key' | 'approve'> | null {
  const match = /^([yn]) (.+)$/.exec(value);
  const target = match ? readButtonPayload(match[2]!) : null;
  return match && target ? { ...target, approve: match[1] === 'y' } : null;
}
