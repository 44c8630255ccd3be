import { type Handler, type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';

/**
 * A local Mattermost REST API (v4) that enforces what the documentation says: the bot's access
 * token as a Bearer header, `POST /api/v4/posts` with a `channel_id` and a `message` of at most
 * 16,383 characters, and a `root_id`, when given, naming a root post of the same channel (a reply
 * to a reply is refused, as the server does). `GET /api/v4/posts/{id}` and `GET /api/v4/users/me`
 * answer as the server does. A create whose `pending_post_id` was seen in the last 30 s answers
 * 201 with the post made then instead of a second one (`deduplicateCreatePost` in
 * mattermost/mattermost server/channels/app/post.go: `pendingPostIDsCacheTTL = 30 * time.Second`,
 * one cache for the whole server, keyed by the id alone).
 */
export interface MattermostPost {
  id: string;
  channel_id: string;
  root_id: string;
  message: string;
  user_id: string;
}

export interface MattermostApi {
  handler: Handler;
  /** Every post, the users' (`userPosted`) and the bot's, oldest first. */
  posts: MattermostPost[];
  /** Posts the bot made. */
  botPosts(): MattermostPost[];
  /** A user's post, so a reply can be threaded under it (or under its root). */
  userPosted(post: { id: string; channel_id: string; root_id?: string; message?: string }): void;
}

export interface FakeMattermost extends MattermostApi {
  url: string;
  server: LocalServer;
  close(): Promise<void>;
}

const LIMIT = 16_383;
const PENDING_POST_TTL_MS = 30_000;
const BOT_USER_ID = 'bot0user0id0000000000000000';

const appError = (id: string, message: string, status: number) => ({
  id,
  message,
  detailed_error: '',
  request_id: 'x',
  status_code: status,
});

export function mattermostApi(options: { botToken: string }): MattermostApi {
  const posts: MattermostPost[] = [];
  const seenPending = new Map<string, { postId: string; until: number }>();
  let nextId = 1;
  const handler: Handler = (req: RecordedRequest, res) => {
    if (req.headers.authorization !== `Bearer ${options.botToken}`) {
      return sendJson(
        res,
        401,
        appError('api.context.session_expired.app_error', 'Invalid or expired session, please login again.', 401),
      );
    }
    if (req.method === 'GET' && req.url === '/api/v4/users/me') {
      return sendJson(res, 200, { id: BOT_USER_ID, username: 'switchboard', is_bot: true });
    }
    const get = /^\/api\/v4\/posts\/([a-z0-9]+)$/.exec(req.url);
    if (req.method === 'GET' && get) {
      const post = posts.find((p) => p.id === get[1]);
      if (!post) return sendJson(res, 404, appError('app.post.get.app_error', 'Unable to get the post.', 404));
      return sendJson(res, 200, post);
    }
    if (req.method !== 'POST' || req.url !== '/api/v4/posts') {
      return sendJson(res, 404, appError('api.context.404.app_error', 'Sorry, we could not find the page.', 404));
    }
    const body = (req.json ?? {}) as { channel_id?: unknown; message?: unknown; root_id?: unknown; pending_post_id?: unknown };
    const pending = typeof body.pending_post_id === 'string' ? body.pending_post_id : '';
    const seen = pending ? seenPending.get(pending) : undefined;
    const earlier = seen && seen.until > Date.now() ? posts.find((p) => p.id === seen.postId) : undefined;
    if (earlier) return sendJson(res, 201, { ...earlier, pending_post_id: pending });
    if (typeof body.channel_id !== 'string' || typeof body.message !== 'string' || body.message.length > LIMIT) {
      return sendJson(res, 400, appError('model.post.is_valid.msg.app_error', 'Invalid message.', 400));
    }
    const rootId = typeof body.root_id === 'string' ? body.root_id : '';
    if (rootId) {
      const isRoot = posts.some((p) => p.id === rootId && p.root_id === '' && p.channel_id === body.channel_id);
      if (!isRoot) {
        return sendJson(res, 400, appError('api.post.create_post.root_id.app_error', 'Invalid RootId parameter.', 400));
      }
    }
    const post = {
      id: `botpost${nextId++}`,
      channel_id: body.channel_id,
      root_id: rootId,
      message: body.message,
      user_id: BOT_USER_ID,
    };
    posts.push(post);
    if (pending) seenPending.set(pending, { postId: post.id, until: Date.now() + PENDING_POST_TTL_MS });
    sendJson(res, 201, { ...post, create_at: Date.now(), ...(pending ? { pending_post_id: pending } : {}) });
  };
  return {
    handler,
    posts,
    botPosts: () => posts.filter((p) => p.user_id === BOT_USER_ID),
    userPosted: (post) => void posts.push({ root_id: '', message: '', user_id: 'someone', ...post }),
  };
}

export async function startFakeMattermost(options: { botToken: string }): Promise<FakeMattermost> {
  const api = mattermostApi(options);
  const server = await startLocalServer(api.handler);
  return { ...api, url: server.url, server, close: () => server.close() };
}
