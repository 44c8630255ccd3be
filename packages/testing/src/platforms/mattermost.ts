/**
 * Mattermost as its integration docs describe it: an outgoing webhook's post (JSON or a form, as
 * the webhook is set up) and a slash command (always a form), each carrying the integration's
 * `token`.
 */

/**
 * What an outgoing webhook posts: `OutgoingWebhookPayload` of the Mattermost server
 * (server/public/model/outgoing_webhook.go; as JSON, or as a form of the same names through its
 * `ToFormValues`), documented at https://developers.mattermost.com/integrate/webhooks/outgoing/.
 * `@mattermost/types` has the webhook's configuration but not this payload.
 */
export interface MattermostOutgoingPayload {
  token: string;
  team_id: string;
  team_domain: string;
  channel_id: string;
  channel_name: string;
  timestamp: number;
  user_id: string;
  user_name: string;
  post_id: string;
  text: string;
  trigger_word: string;
  file_ids: string;
}

/**
 * What a slash command posts (always a form): the fields the server sets in
 * server/channels/app/command.go (`ExecuteCommand`: token, team_id, team_domain, channel_id,
 * channel_name, user_id, user_name, command, text, trigger_id, response_url), documented at
 * https://developers.mattermost.com/integrate/slash-commands/custom/.
 */
export interface MattermostSlashCommandForm {
  token: string;
  team_id: string;
  team_domain: string;
  channel_id: string;
  channel_name: string;
  user_id: string;
  user_name: string;
  command: string;
  text: string;
  trigger_id: string;
  response_url: string;
}

/** An outgoing webhook's fields for a post in a public channel; override any per test (loose: tests send malformed ones too). */
export function mattermostOutgoing(fields: Record<string, string | number> = {}) {
  const payload = {
    token: 'mm-outgoing-token-0123',
    team_id: 'rdc9bgriktyx9p4kowh3dmgqyc',
    team_domain: 'acme',
    channel_id: 'fukxanjgjbnp7ng383at53k1sy',
    channel_name: 'town-square',
    timestamp: 1_736_942_400_000,
    user_id: 'h5iz5vlzj3ggzd4bdbrm7xnfho',
    user_name: 'ada',
    post_id: 'ga9nrwr3kfdmtf6ffk6xdhzrsy',
    text: '#ask What is a monad?',
    trigger_word: '#ask',
    file_ids: '',
  } satisfies MattermostOutgoingPayload;
  return { ...payload, ...fields };
}

/**
 * A slash command's fields (`/ask <text>`); override any per test (loose: tests send malformed
 * ones, and `root_id`, which newer servers are said to add for a command run in a thread — not
 * found in the server source this was checked against).
 */
export function mattermostSlashCommand(fields: Record<string, string> = {}) {
  const form = {
    token: 'mm-command-token-0123',
    team_id: 'rdc9bgriktyx9p4kowh3dmgqyc',
    team_domain: 'acme',
    channel_id: 'fukxanjgjbnp7ng383at53k1sy',
    channel_name: 'town-square',
    user_id: 'h5iz5vlzj3ggzd4bdbrm7xnfho',
    user_name: 'ada',
    command: '/ask',
    text: 'What is a monad?',
    response_url: 'https://chat.example.com/hooks/commands/9b5pbyd1ginsumzoamnkmxfzrc',
    trigger_id: 'cW9oZHkxcjNwM2J4bWZ1OjE3MzY5NDI0MDAwMDA6MTczNjk0MjQwMDAwMA==',
  } satisfies MattermostSlashCommandForm;
  return { ...form, ...fields };
}

/** Fields as `application/x-www-form-urlencoded`, the way Mattermost posts a form. */
export function formBody(fields: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)])).toString();
}
