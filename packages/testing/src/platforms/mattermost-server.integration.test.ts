import { afterEach, describe, expect, it } from 'vitest';
import { type FakeMattermost, startFakeMattermost } from './mattermost-server.js';

const TOKEN = 'mm-bot-token-0123';
let mattermost: FakeMattermost | undefined;

afterEach(async () => {
  await mattermost?.close();
  mattermost = undefined;
});

const createPost = (body: string, contentType: string) =>
  fetch(`${mattermost!.url}/api/v4/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
    body,
  });

describe('the fake Mattermost API', () => {
  it('answers a created post with 201 and the whole post', async () => {
    mattermost = await startFakeMattermost({ botToken: TOKEN });
    const created = await createPost(JSON.stringify({ channel_id: 'chan1', message: 'A monad is…' }), 'application/json');
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      id: expect.any(String),
      channel_id: 'chan1',
      message: 'A monad is…',
      root_id: '',
      create_at: expect.any(Number),
      update_at: expect.any(Number),
      edit_at: 0,
      delete_at: 0,
      type: '',
      props: {},
      pending_post_id: '',
      reply_count: 0,
    });
  });

  it('refuses a post that is not JSON with 400 and the server error body', async () => {
    mattermost = await startFakeMattermost({ botToken: TOKEN });
    const form = await createPost('channel_id=chan1&message=hi', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ id: 'api.context.invalid_body_param.app_error', status_code: 400 });
    expect(mattermost.botPosts()).toEqual([]);
  });
});
