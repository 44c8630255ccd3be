/**
 * Mattermost as its integration docs describe it: an outgoing webhook's post (JSON or a form, as
 * the webhook is set up) and a slash command (always a form), each carrying the integration's
 * `token`.
 */

/** An outgoing webhook's fields for a post in a public channel; override any per test. */
export function mattermostOutgoing(fields: Record<string, string | number> = {}) {
  return {
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
    ...fields,
  };
}

/** A slash command's fields (`/ask <text>`); override any per test. */
export function mattermostSlashCommand(fields: Record<string, string> = {}) {
  return {
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
    ...fields,
  };
}

/** Fields as `application/x-www-form-urlencoded`, the way Mattermost posts a form. */
export function formBody(fields: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)])).toString();
}
