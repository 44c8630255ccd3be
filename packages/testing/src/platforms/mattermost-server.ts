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
 * A post's `props` (message attachments with buttons) are kept; `PUT /api/v4/posts/{id}/patch`
 * replaces its message and props. A click on a button is what the server's `DoPostAction` does
 * (mattermost/mattermost server/channels/app/integration_action.go): `click` gives the request
 * it would POST to the button's `integration.url`, and `answered` applies the integration's
 * answer (https://developers.mattermost.com/integrate/plugins/interactive-messages/).
 */
export interface MattermostPost {
  id: string;
  channel_id: string;
  root_id: string;
  message: string;
  user_id: string;
  create_at: number;
  /** What the post was created (or last updated) with: message attachments and their buttons. */
  props?: { attachments?: MattermostAttachment[] } & Record<string, unknown>;
}

/**
 * A message attachment with its actions as an integration sends them: the server's `PostAction`
 * (mattermost/mattermost server/public/model/integration_action.go), whose `integration` (url,
 * context) the server keeps and strips from what clients see (`@mattermost/types`' `PostAction`
 * has no `integration` for that reason).
 */
export interface MattermostAttachment {
  text?: string;
  actions?: { id: string; type?: string; name: string; style?: string; integration?: { url: string; context?: unknown } }[];
}

/**
 * What the server posts to a button's `integration.url` when it is clicked:
 * `PostActionIntegrationRequest` (integration_action.go), as JSON.
 */
export interface MattermostActionRequest {
  user_id: string;
  user_name: string;
  channel_id: string;
  channel_name: string;
  team_id: string;
  team_domain: string;
  post_id: string;
  trigger_id: string;
  type: 'button';
  data_source: string;
  context?: unknown;
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
  /**
   * A user clicking the button `actionId` of a post: where the server would POST, and what
   * (`DoPostAction`: the action's integration url, and the request with its context).
   */
  click(postId: string, actionId: string, user: { id: string; username: string }): { url: string; body: MattermostActionRequest };
  /**
   * What the server does with the integration's answer (`PostActionIntegrationResponse`): an
   * `update` replaces the post's message and props (the attachments, so the buttons, go unless
   * it keeps them); `ephemeral_text` is shown to the clicker alone, kept here in `ephemerals`.
   */
  answered(postId: string, userId: string, response: unknown): void;
  /** Ephemeral messages the server showed, to whom. */
  ephemerals: { user_id: string; message: string }[];
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
  const ephemerals: { user_id: string; message: string }[] = [];
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
    // https://developers.mattermost.com/api-documentation/#/operations/PatchPost: message and props replaced when given.
    const patch = /^\/api\/v4\/posts\/([a-z0-9]+)\/patch$/.exec(req.url);
    if (req.method === 'PUT' && patch) {
      const post = posts.find((p) => p.id === patch[1]);
      if (!post) return sendJson(res, 404, appError('app.post.get.app_error', 'Unable to get the post.', 404));
      const body = (req.json ?? {}) as { message?: unknown; props?: unknown };
      if (body.message !== undefined && (typeof body.message !== 'string' || body.message.length > LIMIT)) {
        return sendJson(res, 400, appError('model.post.is_valid.msg.app_error', 'Invalid message.', 400));
      }
      if (typeof body.message === 'string') post.message = body.message;
      if (typeof body.props === 'object' && body.props !== null) post.props = body.props as MattermostPost['props'];
      return sendJson(res, 200, wholePost(post));
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
    const body = (req.json ?? {}) as {
      channel_id?: unknown;
      message?: unknown;
      root_id?: unknown;
      pending_post_id?: unknown;
      props?: unknown;
    };
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
      ...(typeof body.props === 'object' && body.props !== null ? { props: body.props as MattermostPost['props'] } : {}),
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
    ephemerals,
    click(postId, actionId, user) {
      const post = posts.find((p) => p.id === postId);
      const action = post?.props?.attachments?.flatMap((a) => a.actions ?? []).find((a) => a.id === actionId);
      if (!post || !action?.integration) throw new Error(`no button '${actionId}' on post '${postId}'`);
      const body: MattermostActionRequest = {
        user_id: user.id,
        user_name: user.username,
        channel_id: post.channel_id,
        channel_name: 'town-square',
        team_id: 'rdc9bgriktyx9p4kowh3dmgqyc',
        team_domain: 'acme',
        post_id: post.id,
        trigger_id: `trigger${postId}${actionId}`,
        type: 'button',
        data_source: '',
        ...(action.integration.context === undefined ? {} : { context: action.integration.context }),
      };
      return { url: action.integration.url, body };
    },
    answered(postId, userId, response) {
      const post = posts.find((p) => p.id === postId);
      const { update, ephemeral_text } = (response ?? {}) as {
        update?: { message?: unknown; props?: unknown };
        ephemeral_text?: unknown;
      };
      if (post && update) {
        if (typeof update.message === 'string') post.message = update.message;
        post.props = (typeof update.props === 'object' && update.props !== null ? update.props : {}) as MattermostPost['props'];
      }
      if (typeof ephemeral_text === 'string' && ephemeral_text) ephemerals.push({ user_id: userId, message: ephemeral_text });
    },
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
    props: post.props ?? {},
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
