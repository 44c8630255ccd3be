import { randomUUID } from 'node:crypto';
import type {
  Activity,
  ChannelAccount,
  ConversationAccount,
  ErrorResponse,
  Mention,
  ResourceResponse,
  TeamsChannelData,
} from 'botframework-schema';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { type Handler, type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';

/**
 * Microsoft Teams as the Bot Framework documents it, on one local server: the Connector's OpenID
 * metadata and JWKS (real RS256 keys; the tokens on activities are signed with them), Entra ID's
 * client-credentials token endpoint, and the Connector's
 * `POST /v3/conversations/{id}/activities/{replyToId}`, which takes only the tokens it issued.
 */

export const TEAMS_ISSUER = 'https://api.botframework.com';
export const TEAMS_APP_ID = '8a7b6c5d-1234-4e5f-9a8b-0c1d2e3f4a5b';
export const TEAMS_BOT_ID = `28:${TEAMS_APP_ID}`;

export interface TeamsReply {
  /** The activity id the Connector gave it. */
  id: string;
  conversationId: string;
  replyToId: string;
  text: string;
  /** Its attachments (an Adaptive Card), as sent or as last updated. */
  attachments?: { contentType: string; content: unknown }[];
}

export interface BotFramework {
  handler: Handler;
  /** Paths on the server (prefix them with its URL). */
  metadataPath: string;
  tokenPath: string;
  /** Replies the Connector accepted, oldest first. */
  replies: TeamsReply[];
  /** How many tokens the token endpoint has issued. */
  tokensIssued(): number;
  /**
   * An image pasted into a message: its `contentUrl` on the Connector
   * (`/v3/attachments/{id}/views/original`), served only with a token the fake issued, as the
   * Connector's attachment views are
   * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4, inline images).
   */
  addInlineImage(bytes: Buffer, contentType: string): string;
  /**
   * A file sent in a personal chat: its `content.downloadUrl`, pre-authenticated (served without a
   * token), as Teams' `application/vnd.microsoft.teams.file.download.info` attachment carries it
   * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4).
   */
  addFileDownload(bytes: Buffer): string;
  /** A Connector JWT for an activity, signed with the issuer's key (`foreign`: a key the JWKS does not hold). */
  sign(
    serviceUrl: string,
    options?: { audience?: string; issuer?: string; expiresIn?: string; claims?: Record<string, unknown>; foreign?: boolean },
  ): Promise<string>;
}

export interface FakeBotFramework extends BotFramework {
  url: string;
  server: LocalServer;
  close(): Promise<void>;
}

/**
 * An activity as its JSON carries it: botframework-schema's `Activity` (the SDK's model), with
 * dates as ISO strings and only what every activity has required — the SDK's model requires
 * fields of its own (`localTimezone`, `callerId`, `label`…) that the Connector does not send.
 */
export type WireActivity = Partial<
  Omit<
    Activity,
    'timestamp' | 'localTimestamp' | 'expiration' | 'from' | 'recipient' | 'conversation' | 'channelData' | 'entities'
  >
> &
  Pick<Activity, 'type' | 'serviceUrl' | 'channelId'> & {
    timestamp?: string;
    localTimestamp?: string;
    from: Partial<ChannelAccount> & { id: string };
    recipient: Partial<ChannelAccount> & { id: string };
    conversation: Partial<ConversationAccount> & { id: string };
    entities?: (Mention | { type: string; [field: string]: unknown })[];
    channelData?: TeamsChannelData;
  };

/** The Connector's error body: botframework-schema's `ErrorResponse` (its `innerHttpError` is the SDK's, for errors it relays). */
type ConnectorError = { error: Pick<ErrorResponse['error'], 'code' | 'message'> };

const TENANT = { id: '72f988bf-86f1-41af-91ab-2d7cd011db47' };
const TEAM = {
  id: '19:c9c4e5f7a1b24ff6a5c8b0d1e2f3a4b5@thread.tacv2',
  name: 'Acme',
  aadGroupId: '02ce3874-dd86-41ba-bddc-013f34019978',
};

/**
 * A Teams `message` activity to the bot, @mentioning it in a channel; override any field per test
 * (loose on purpose: tests send malformed activities too). Shaped like the channel message of
 * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/conversations/channel-and-group-conversations
 * (`<at>` mention in `text` and `entities`) and the Teams `channelData` of
 * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/conversations/conversation-messages#teams-channel-data
 * (teamsChannelId, teamsTeamId, channel, team, tenant), typed as `WireActivity`.
 */
export function teamsMessageActivity(serviceUrl: string, fields: Record<string, unknown> = {}) {
  const activity = {
    type: 'message',
    id: '1736942400000',
    timestamp: '2025-01-15T12:00:00.000Z',
    localTimestamp: '2025-01-15T13:00:00.000+01:00',
    localTimezone: 'Europe/Berlin',
    serviceUrl,
    channelId: 'msteams',
    from: {
      id: '29:1XJKJMvc5GBtc2JwZq0oj8tHZmzrQgFmB39ATiQWA85gQtHieVkKilBZ9XHoq9j7Zaqt7CZ-NJWi7me2kHTL3Bw',
      name: 'Ada Lovelace',
      aadObjectId: '6a1f3e2b-0000-4c1d-9e8f-7a6b5c4d3e2f',
    },
    conversation: {
      id: '19:c9c4e5f7a1b24ff6a5c8b0d1e2f3a4b5@thread.tacv2;messageid=1736942400000',
      isGroup: true,
      conversationType: 'channel',
      tenantId: TENANT.id,
    },
    recipient: { id: TEAMS_BOT_ID, name: 'Switchboard' },
    text: '<at>Switchboard</at> What is a monad?',
    textFormat: 'plain',
    locale: 'en-US',
    attachments: [],
    entities: [
      { type: 'mention', text: '<at>Switchboard</at>', mentioned: { id: TEAMS_BOT_ID, name: 'Switchboard' } },
      { type: 'clientInfo', locale: 'en-US', country: 'US', platform: 'Web', timezone: 'Europe/Berlin' },
    ],
    channelData: {
      teamsChannelId: TEAM.id,
      teamsTeamId: TEAM.id,
      channel: { id: TEAM.id },
      team: TEAM,
      tenant: TENANT,
    },
  } satisfies WireActivity & { channelData: TeamsChannelData & { teamsChannelId: string; teamsTeamId: string } };
  return { ...activity, ...fields };
}

/**
 * A `conversationUpdate`: the bot was added to a team (Teams' `channelData.eventType`
 * `teamMemberAdded`, https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/conversations/subscribe-to-conversation-events#team-members-added).
 */
export function teamsConversationUpdate(serviceUrl: string) {
  return {
    type: 'conversationUpdate',
    id: 'f:1736942400001',
    timestamp: '2025-01-15T12:00:00.000Z',
    serviceUrl,
    channelId: 'msteams',
    from: { id: '29:1XJKJMvc5GBtc2JwZq0oj8tHZmzrQgFmB39ATiQWA85gQtHieVkKilBZ9XHoq9j7Zaqt7CZ-NJWi7me2kHTL3Bw' },
    conversation: { id: TEAM.id, isGroup: true, conversationType: 'channel', tenantId: TENANT.id },
    recipient: { id: TEAMS_BOT_ID, name: 'Switchboard' },
    membersAdded: [{ id: TEAMS_BOT_ID, name: 'Switchboard' }],
    channelData: { eventType: 'teamMemberAdded', team: TEAM, tenant: TENANT },
  } satisfies WireActivity;
}

export async function botFramework(options: {
  appId: string;
  appPassword: string;
  baseUrl: () => string;
}): Promise<BotFramework> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  const issued = new Set<string>();
  const replies: TeamsReply[] = [];
  const inline = new Map<string, { bytes: Buffer; contentType: string }>();
  const downloads = new Map<string, Buffer>();
  const metadataPath = '/v1/.well-known/openidconfiguration';
  const keysPath = '/v1/.well-known/keys';
  const tokenPath = '/botframework.com/oauth2/v2.0/token';

  const handler: Handler = (req: RecordedRequest, res) => {
    if (req.method === 'GET' && req.url === metadataPath) {
      return sendJson(res, 200, {
        issuer: TEAMS_ISSUER,
        authorization_endpoint: 'https://invalid.botframework.com',
        jwks_uri: `${options.baseUrl()}${keysPath}`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
      });
    }
    if (req.method === 'GET' && req.url === keysPath)
      return sendJson(res, 200, { keys: [{ ...jwk, endorsements: ['msteams'] }] });
    if (req.method === 'POST' && req.url === tokenPath) {
      const form = new URLSearchParams(req.body);
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'https://api.botframework.com/.default') {
        return sendJson(res, 400, {
          error: 'invalid_request',
          error_description: 'AADSTS900144: The request body must contain grant_type and scope.',
        });
      }
      if (form.get('client_id') !== options.appId || form.get('client_secret') !== options.appPassword) {
        return sendJson(res, 401, {
          error: 'invalid_client',
          error_description: 'AADSTS7000215: Invalid client secret provided.',
        });
      }
      const token = `eyJ0eXAi.${randomUUID()}.sig`;
      issued.add(token);
      return sendJson(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
    }
    const view = /^\/v3\/attachments\/([^/]+)\/views\/original$/.exec(req.url);
    if (req.method === 'GET' && view) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !issued.has(token)) return sendJson(res, 401, { message: 'Authorization has been denied for this request.' });
      const image = inline.get(view[1]!);
      if (!image) return sendJson(res, 404, { error: { code: 'NotFound', message: 'Not found' } } satisfies ConnectorError);
      return void res.writeHead(200, { 'content-type': image.contentType }).end(image.bytes);
    }
    const download = req.method === 'GET' ? downloads.get(req.url) : undefined;
    if (download) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(download);
    const reply = /^\/v3\/conversations\/([^/]+)\/activities\/([^/]+)$/.exec(req.url);
    if (req.method === 'POST' && reply) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !issued.has(token)) return sendJson(res, 401, { message: 'Authorization has been denied for this request.' });
      const body = (req.json ?? {}) as { type?: unknown; text?: unknown; attachments?: unknown };
      const attachments = validAttachments(body.attachments);
      if (body.type !== 'message' || (typeof body.text !== 'string' && !attachments?.length) || attachments === null) {
        return sendJson(res, 400, { error: { code: 'BadArgument', message: 'Activity is invalid' } } satisfies ConnectorError);
      }
      if (Buffer.byteLength(req.body) > 28_000) {
        return sendJson(res, 413, {
          error: { code: 'MessageSizeTooBig', message: 'Message size too big' },
        } satisfies ConnectorError);
      }
      const id = `1736942400${replies.length + 1}`;
      replies.push({
        id,
        conversationId: decodeURIComponent(reply[1]!),
        replyToId: decodeURIComponent(reply[2]!),
        text: typeof body.text === 'string' ? body.text : '',
        ...(attachments?.length ? { attachments } : {}),
      });
      // https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference#reply-to-activity:
      // 200/201 with a ResourceResponse, the new activity's id.
      return sendJson(res, 201, { id } satisfies ResourceResponse);
    }
    // "Update activity" (same reference): PUT on the activity replaces its content; 200 with a ResourceResponse.
    if (req.method === 'PUT' && reply) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !issued.has(token)) return sendJson(res, 401, { message: 'Authorization has been denied for this request.' });
      const target = replies.find(
        (r) => r.id === decodeURIComponent(reply[2]!) && r.conversationId === decodeURIComponent(reply[1]!),
      );
      if (!target)
        return sendJson(res, 404, { error: { code: 'NotFound', message: 'Activity not found' } } satisfies ConnectorError);
      const body = (req.json ?? {}) as { type?: unknown; text?: unknown; attachments?: unknown };
      const attachments = validAttachments(body.attachments);
      if (body.type !== 'message' || attachments === null) {
        return sendJson(res, 400, { error: { code: 'BadArgument', message: 'Activity is invalid' } } satisfies ConnectorError);
      }
      target.text = typeof body.text === 'string' ? body.text : '';
      if (attachments?.length) target.attachments = attachments;
      else delete target.attachments;
      return sendJson(res, 200, { id: target.id } satisfies ResourceResponse);
    }
    sendJson(res, 404, { error: { code: 'NotFound', message: 'Not found' } } satisfies ConnectorError);
  };

  return {
    handler,
    metadataPath,
    tokenPath,
    replies,
    tokensIssued: () => issued.size,
    addInlineImage(bytes, contentType) {
      const id = `0-wus-d1-${randomUUID().replaceAll('-', '')}`;
      inline.set(id, { bytes, contentType });
      return `${options.baseUrl()}/v3/attachments/${id}/views/original`;
    },
    addFileDownload(bytes) {
      const path = `/personal/ada/_layouts/15/download.aspx?UniqueId=${randomUUID()}&tempauth=fake`;
      downloads.set(path, bytes);
      return `${options.baseUrl()}${path}`;
    },
    sign: (serviceUrl, signOptions = {}) =>
      // The claim is `serviceurl`, all lowercase: `AuthenticationConstants.ServiceUrlClaim` in
      // botframework-connector (lib/auth/authenticationConstants.js) and botbuilder-dotnet.
      new SignJWT({ serviceurl: serviceUrl, ...signOptions.claims })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(signOptions.issuer ?? TEAMS_ISSUER)
        .setAudience(signOptions.audience ?? options.appId)
        .setIssuedAt()
        .setNotBefore('0s')
        .setExpirationTime(signOptions.expiresIn ?? '1h')
        .sign(signOptions.foreign ? foreign.privateKey : privateKey),
  };
}

/** The fake on a server of its own. */
export async function startFakeBotFramework(options: { appId: string; appPassword: string }): Promise<FakeBotFramework> {
  let url = '';
  const framework = await botFramework({ ...options, baseUrl: () => url });
  const server = await startLocalServer(framework.handler);
  url = server.url;
  return { ...framework, url, server, close: () => server.close() };
}

/**
 * Attachments as a reply may carry them: undefined when absent, null when malformed. An Adaptive
 * Card (`application/vnd.microsoft.card.adaptive`) must be `type: "AdaptiveCard"` with a `version`,
 * and its actions typed with a `title` (https://adaptivecards.io/explorer/AdaptiveCard.html,
 * https://adaptivecards.io/explorer/Action.Submit.html).
 */
function validAttachments(value: unknown): { contentType: string; content: unknown }[] | null | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return null;
  const ok = value.every((a: { contentType?: unknown; content?: { type?: unknown; version?: unknown; actions?: unknown } }) => {
    if (typeof a?.contentType !== 'string') return false;
    if (a.contentType !== 'application/vnd.microsoft.card.adaptive') return true;
    const card = a.content;
    if (card?.type !== 'AdaptiveCard' || typeof card.version !== 'string') return false;
    if (card.actions === undefined) return true;
    return (
      Array.isArray(card.actions) &&
      card.actions.every(
        (action: { type?: unknown; title?: unknown }) => typeof action?.type === 'string' && typeof action.title === 'string',
      )
    );
  });
  return ok ? (value as { contentType: string; content: unknown }[]) : null;
}

/**
 * What Teams sends when a person presses an Adaptive Card's `Action.Submit`: a `message` activity
 * from them, with no text, the action's `data` as `value`, and the card's activity as `replyToId`
 * (learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/cards-actions,
 * "Action.Submit"). The data is taken from the card the bot posted: a test presses what is there.
 */
export function teamsCardSubmit(
  serviceUrl: string,
  card: TeamsReply,
  title: string,
  from: { id: string; name: string },
  id: string,
) {
  const content = card.attachments?.[0]?.content as { actions?: { title: string; data: unknown }[] } | undefined;
  const action = content?.actions?.find((a) => a.title === title);
  if (!action) throw new Error(`the card ${card.id} has no '${title}' action`);
  const activity = teamsMessageActivity(serviceUrl, { id, text: undefined, entities: [], from });
  return { ...activity, value: action.data, replyToId: card.id };
}
