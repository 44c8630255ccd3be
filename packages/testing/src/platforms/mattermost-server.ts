import type { Post } from '@mattermost/types/posts';
import type { UserProfile } from '@mattermost/types/users';
import { type Handler, type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';

/**
 * A local Mattermost REST API (v4) that enforces what the documentation says: the bot's access
 * token as a Bearer header, `POST /api/v4/posts` with a `channel_id` and a `message` of at most
 * 16,383 characters, and a `root_id`, when given, naming a root post of the same channel (a reply
 * to a reply is refused, as the server does). The body must be JSON
 * (https://developers.mattermost.com/api-documentation/#/operations/CreatePost); anything else is
 * refused as the server refuses a missing post. `GET /api/v4/posts/{id}` and `GET /api/v4/users/me`
 * answer as the server does. Posts are answered whole, typed as `@mattermost/types`' `Post`.
 * A create whose `pending_post_id` was seen in the last 30 s answers 201 with the post made then
 * instead of a second one (`deduplicateCreatePost` in mattermost/mattermost
 * server/channels/app/post.go: `pendingPostIDsCacheTTL = 30 * time.Second`, one cache for the
 * whole server, keyed by the id alone). `GET /api/v4/files/{file_id}` answers a file's bytes
 * (https://developers.mattermost.com/api-documentation/#/operations/GetFile), with the token too.
 */
export interface MattermostPost {
  id: string;
  channel_id: string;
  root_id: string;
  message: string;
  user_id: string;
  create_at: number;
}

export interface MattermostApi {
  handler: Handler;
  /** Every post, the users' (`userPosted`) and the bot's, oldest first. */
  posts: MattermostPost[];
  /** Posts the bot made. */
  botPosts(): MattermostPost[];
  /** A user's post, so a reply can be threaded under it (or under its root). */
  userPosted(post: { id: string; channel_id: string; root_id?: string; message?: string }): void;
  /** A file attached to a user's post; its id (26 characters), for an outgoing webhook's `file_ids`. */
  addFile(bytes: Buffer, mimeType: string): string;
}

export interface FakeMattermost extends MattermostApi {
  url: string;
  server: LocalServer;
  close(): Promise<void>;
}

const LIMIT = 16_383;
const PENDING_POST_TTL_MS = 30_000;
const BOT_USER_ID = 'bot0user0id0000000000000000';

/** The server's `AppError` as JSON (server/public/model/utils.go: id, message, detailed_error, request_id, status_code). */
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
  const files = new Map<string, { bytes: Buffer; mimeType: string }>();
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
      return sendJson(res, 200, {
        id: BOT_USER_ID,
        username: 'switchboard',
        is_bot: true,
        bot_description: 'Answers with a model',
        create_at: 1_736_900_000_000,
        update_at: 1_736_900_000_000,
        delete_at: 0,
        first_name: '',
        last_name: '',
        nickname: '',
        position: '',
        roles: 'system_user',
        locale: 'en',
        auth_service: '',
      } satisfies Partial<UserProfile>);
    }
    const file = req.method === 'GET' ? files.get(/^\/api\/v4\/files\/([a-z0-9]+)$/.exec(req.url)?.[1] ?? '') : undefined;
    if (file) {
      res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.bytes.length) });
      return void res.end(file.bytes);
    }
    const get = /^\/api\/v4\/posts\/([a-z0-9]+)$/.exec(req.url);
    if (req.method === 'GET' && get) {
      const post = posts.find((p) => p.id === get[1]);
      if (!post) return sendJson(res, 404, appError('app.post.get.app_error', 'Unable to get the post.', 404));
      return sendJson(res, 200, wholePost(post));
    }
    if (req.method !== 'POST' || req.url !== '/api/v4/posts') {
      return sendJson(res, 404, appError('api.context.404.app_error', 'Sorry, we could not find the page.', 404));
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json') || req.json === undefined) {
      return sendJson(
        res,
        400,
        appError('api.context.invalid_body_param.app_error', 'Invalid or missing post in request body.', 400),
      );
    }
    const body = (req.json ?? {}) as { channel_id?: unknown; message?: unknown; root_id?: unknown; pending_post_id?: unknown };
    const pending = typeof body.pending_post_id === 'string' ? body.pending_post_id : '';
    const seen = pending ? seenPending.get(pending) : undefined;
    const earlier = seen && seen.until > Date.now() ? posts.find((p) => p.id === seen.postId) : undefined;
    if (earlier) return sendJson(res, 201, wholePost(earlier, pending));
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
      create_at: Date.now(),
    };
    posts.push(post);
    if (pending) seenPending.set(pending, { postId: post.id, until: Date.now() + PENDING_POST_TTL_MS });
    sendJson(res, 201, wholePost(post, pending));
  };
  return {
    handler,
    posts,
    botPosts: () => posts.filter((p) => p.user_id === BOT_USER_ID),
    userPosted: (post) => void posts.push({ root_id: '', message: '', user_id: 'someone', create_at: Date.now(), ...post }),
    addFile(bytes, mimeType) {
      const id = `file${String(files.size + 1).padStart(22, '0')}`;
      files.set(id, { bytes, mimeType });
      return id;
    },
  };
}

/** A post as the server answers it (https://developers.mattermost.com/api-documentation/#/operations/CreatePost, 201). */
function wholePost(post: MattermostPost, pendingPostId = ''): Post {
  return {
    ...post,
    update_at: post.create_at,
    edit_at: 0,
    delete_at: 0,
    is_pinned: false,
    original_id: '',
    type: '',
    props: {},
    hashtags: '',
    pending_post_id: pendingPostId,
    reply_count: 0,
    // The server leaves empty metadata out (omitempty in model.PostMetadata); the client's type lists it all.
    metadata: {} as Post['metadata'],
  };
}

export async function startFakeMattermost(options: { botToken: string }): Promise<FakeMattermost> {
  const api = mattermostApi(options);
  const server = await startLocalServer(api.handler);
  return { ...api, url: server.url, server, close: () => server.close() };
}
