import { describe, expect, it } from 'vitest';
import { createHook } from '../hooks.js';
import { appErrorFrom } from '../test-support/errors.js';
import { isMattermostAction, mattermostApprovals, parseMattermostAction } from './mattermost-approvals.js';
import { mattermost } from './mattermost-channel.js';

const TOKEN = 'mm-outgoing-token-0123';

/** The question's buttons as `ask` posts them, through a client that records the post. */
async function askedButtons() {
  let posted: unknown;
  const http = {
    send: async (request: { body?: unknown }) => {
      posted = request.body;
      return { status: 201, headers: {}, text: '', json: { id: 'question0post0000000000001' } };
    },
  };
  const question = {
    jobRef: '0123456789abcdef0123456789abcdef',
    key: '0:0',
    tool: 'create_ticket',
    arguments: '{}',
    approvers: ['ada'],
    until: Date.now() + 60_000,
    message: { action: 'chat', text: 'hi', from: 'ada', conversation: 'c', dedupeKey: null, replyTo: { channel_id: 'chan' } },
  } as const;
  const config = {
    token: TOKEN,
    serverUrl: 'https://chat.example.com',
    botToken: 'bot-token-0123',
    actionUrl: 'https://sb.example/hooks/mm',
  };
  await mattermostApprovals.ask(question as never, { hook: 'mm', config, http: http as never });
  const actions = (posted as { props: { attachments: { actions: { integration: { url: string; context: unknown } }[] }[] } })
    .props.attachments[0]!.actions;
  return actions.map((a) => a.integration);
}

/** What the server posts when `user` clicks a button whose context is `context`. */
const clickBody = (context: unknown, user = 'ada') => ({
  user_id: user,
  user_name: user,
  channel_id: 'chan',
  post_id: 'question0post0000000000001',
  context,
});

describe('Mattermost approval buttons', () => {
  it('signs each button’s context, and reads a click on it back as the choice it was made with', async () => {
    const [approve, deny] = await askedButtons();
    expect(approve!.url).toBe('https://sb.example/hooks/mm');
    expect(isMattermostAction(clickBody(approve!.context))).toBe(true);
    const approved = parseMattermostAction(clickBody(approve!.context), TOKEN);
    expect(approved).toMatchObject({
      kind: 'click',
      click: { approve: true, key: '0:0', user: 'ada', prompt: { post_id: 'question0post0000000000001' } },
    });
    expect(parseMattermostAction(clickBody(deny!.context), TOKEN)).toMatchObject({ kind: 'click', click: { approve: false } });
  });

  it('refuses (401) a context signed with another key, one whose choice was changed, and one without a signature', async () => {
    const [, deny] = await askedButtons();
    const context = deny!.context as { sb: string; sig: string };
    expect(appErrorFrom(() => parseMattermostAction(clickBody(context), 'another-token-0123')).status).toBe(401);
    expect(
      appErrorFrom(() => parseMattermostAction(clickBody({ ...context, sb: context.sb.replace(/^n/, 'y') }), TOKEN)).status,
    ).toBe(401);
    expect(appErrorFrom(() => parseMattermostAction(clickBody({ sb: context.sb }), TOKEN)).status).toBe(401);
  });

  it('offers buttons only on a hook that says where Mattermost posts clicks (actionUrl)', async () => {
    const config = { token: TOKEN, serverUrl: 'https://chat.example.com', botToken: 'bot-token-0123' };
    const without = createHook('mm', { ...mattermost.config.parse(config), type: 'mattermost' } as never);
    const withUrl = createHook('mm', {
      ...mattermost.config.parse({ ...config, actionUrl: 'https://sb.example/hooks/mm' }),
      type: 'mattermost',
    } as never);
    try {
      expect(without.approvals).toBeUndefined();
      expect(withUrl.approvals).toBeDefined();
    } finally {
      await Promise.all([without.close(), withUrl.close()]);
    }
  });

  it('answers a decision with an update that drops the buttons, and a refusal with ephemeral text', async () => {
    const click = parseMattermostAction(clickBody((await askedButtons())[0]!.context), TOKEN);
    if (click.kind !== 'click') throw new Error('expected a click');
    const decided = { kind: 'decided', approve: true, by: 'ada', byName: 'ada', tool: 'create_ticket', arguments: '{}' } as const;
    expect(await mattermostApprovals.answer(click.click, decided, {} as never)).toEqual({
      status: 200,
      body: { update: { message: '✅ @ada approved **create_ticket** with `{}`.', props: {} } },
    });
    expect(await mattermostApprovals.answer(click.click, { kind: 'refused', reason: 'expired' }, {} as never)).toEqual({
      status: 200,
      body: { ephemeral_text: 'Too late: this call was denied when its time ran out.' },
    });
  });
});
