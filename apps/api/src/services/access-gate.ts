import type { Hook } from '@switchboard/channels';
import type { AccessConfig, HookConfig } from '@switchboard/config';
import { type InboundMessage, withMediaPlaceholders } from '@switchboard/protocol';
import type { AccessStore, RateLimiter } from '@switchboard/state';

/** What the bot says instead of answering: short, and the same on every channel. */
export const ACCESS_REPLIES = {
  denied: 'Sorry, this bot only answers the people it was set up for.',
  pairing: (code: string) =>
    `Hello! I don't know you yet. To talk to me, ask my operator to approve this code: ${code}\n(It is valid for an hour.)`,
  approved: 'You have been approved: write to me whenever you like.',
  rateLimited: (seconds: number) => `You're sending messages faster than I can answer. Please wait ${seconds} s, then try again.`,
  reset: 'Done: I have forgotten our conversation. What next?',
  help: 'Ask me anything. /reset forgets our conversation; /help shows this message.',
} as const;

/** A notice to someone the bot does not answer goes out once an hour at most. */
const DENIED_NOTICE_SECONDS = 3600;

/** The commands every channel understands in a message's text. */
export type Command = 'reset' | 'help' | 'start';

export interface GateDeps {
  access: AccessStore;
  rateLimiter: RateLimiter;
}

/**
 * Decides what becomes of a parsed message before anything is queued: the message itself (to be
 * answered), a message turned into a fixed reply (`say`: a pairing code, a notice, the help
 * text; `reset` with a confirmation), a message kept as context only (`remember`), or null
 * (ignored: never queued). Whatever it makes keeps the platform message's dedupe key, so a
 * platform's retry never queues a second notice.
 *
 * Order: where the message was written (groups: mention only by default), who wrote it (`users`,
 * approved people, `dm`), how fast they write (`rateLimit.perUser`), then commands. Messages
 * whose channel does not say where they were written (mapped hooks) pass untouched; the
 * `access` rules apply only when the hook sets `access`.
 */
export async function gateMessage(
  deps: GateDeps,
  hook: Hook<HookConfig>,
  message: InboundMessage,
): Promise<InboundMessage | null> {
  if (message.place === undefined) return message;
  const { access, rateLimit, help } = hook.config;
  const command = message.action === 'chat' ? readCommand(message.text, message.addressed === true) : null;

  if (access) {
    const direct = message.place === 'direct';
    if (!direct && access.groups === 'off') return null;
    if (!direct && access.groups === 'mention' && !message.addressed) {
      const keep =
        access.groupContext && command === null && message.action === 'chat' && (await allowed(deps, hook, access, message));
      if (!keep) return null;
      // Kept as context only: its files are not fetched, memory names them.
      const { media, ...rest } = message;
      return {
        ...rest,
        action: 'remember',
        text: `${message.fromName ?? message.from}: ${withMediaPlaceholders(message.text, media)}`,
      };
    }
    if (direct && access.dm === 'off') return null;
    if (!(await allowed(deps, hook, access, message))) {
      if (!direct) return null;
      if (access.dm === 'pairing') {
        // Kept with the request: what the admin route queues for the person once approved.
        const notice = JSON.stringify(say(message, ACCESS_REPLIES.approved));
        const { code, created } = await deps.access.requestPairing(
          hook.name,
          message.from,
          message.fromName ?? null,
          Date.now(),
          notice,
        );
        return created ? say(message, ACCESS_REPLIES.pairing(code)) : null;
      }
      const first = await deps.access.once(`denied:${hook.name}:${message.from}`, DENIED_NOTICE_SECONDS);
      return first ? say(message, ACCESS_REPLIES.denied) : null;
    }
  }

  const perUser = rateLimit?.perUser;
  if (perUser) {
    const hit = await deps.rateLimiter.hit(`user:${hook.name}:${message.from}`, perUser);
    // The first message over the limit is told when to come back; the rest of the minute, silence.
    if (!hit.allowed) return hit.count === perUser + 1 ? say(message, ACCESS_REPLIES.rateLimited(hit.resetSeconds)) : null;
  }

  if (command === 'reset') return { ...message, action: 'reset', reply: ACCESS_REPLIES.reset };
  if (command === 'help' || command === 'start') return say(message, help ?? ACCESS_REPLIES.help);
  return message;
}

/**
 * May this person talk to the bot: named in `users`, approved by an operator (pairing), or anyone
 * when `users` is empty — but not in a direct chat under `dm: "pairing"`, where only the named and
 * the approved are known.
 */
async function allowed(deps: GateDeps, hook: Hook<HookConfig>, access: AccessConfig, message: InboundMessage): Promise<boolean> {
  const pairing = access.dm === 'pairing' && message.place === 'direct';
  if (access.users.length === 0 && !pairing) return true;
  if (access.users.includes(message.from)) return true;
  return deps.access.isApproved(hook.name, message.from);
}

/** The same message, answered with `text` and nothing else. */
function say(message: InboundMessage, text: string): InboundMessage {
  return { ...message, action: 'say', reply: text };
}

/**
 * The command a message's text is, if any: `/reset`, `/help` or `/start` as its first word, after
 * any mentions of the bot (`<@U123>` on Slack, `@name` elsewhere). `/help@somebot` is this bot's
 * only when the channel found the message addressed to it (Telegram matches the name).
 */
export function readCommand(text: string, addressed: boolean): Command | null {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => !/^<@[^>]+>$/.test(word) && !/^@\S+$/.test(word));
  const match = /^\/(reset|help|start)(@\S+)?$/i.exec(words[0] ?? '');
  if (!match || words.length > 1) return null;
  if (match[2] && !addressed) return null;
  return match[1]!.toLowerCase() as Command;
}
