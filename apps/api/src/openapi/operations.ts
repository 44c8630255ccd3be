import { genericBodySchema } from '@switchboard/channels';
import {
  chatCompletionRequestSchema,
  embeddingsRequestSchema,
  responsesRequestSchema,
  transcriptionRequestSchema,
} from '@switchboard/protocol';
import { z } from 'zod';
import { activityQuerySchema, bulkRetryBodySchema, listJobsQuerySchema, usageQuerySchema } from '../routes/admin-schemas.js';
import { BULL_BOARD_PATH } from '../routes/bull-board.js';

/**
 * Every route the API serves, as /openapi.json describes it. Request bodies and query strings are
 * the zod schemas the routes validate with (one source of truth); a test checks that every route
 * the router serves is listed here. Each operation's `security` is its route's guard in
 * route-policy.ts (document.ts).
 */
export interface Operation {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI style: `/hooks/{name}`. */
  path: string;
  tag: 'facade' | 'hooks' | 'health' | 'admin' | 'docs';
  summary: string;
  query?: z.ZodObject;
  /** Component name → schema of the body: JSON unless `type` says otherwise. */
  body?: { name: string; schema: z.ZodType; required: boolean; type?: 'multipart/form-data' };
  /** Status → description; the success body is JSON unless `content` says otherwise. */
  responses: Record<number, string>;
  /** The success content type, when not JSON. */
  content?: string;
}

const facadeErrors = { 400: 'Invalid request', 401: 'Missing or wrong API key', 429: 'Rate limited', 502: 'Upstream failed' };
const adminErrors = { 401: 'Missing or wrong admin key', 403: 'Admin keys not configured while API keys are' };

export const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/v1/chat/completions',
    tag: 'facade',
    summary: 'Chat completion (OpenAI-compatible); `stream: true` answers Server-Sent Events',
    body: { name: 'ChatCompletionRequest', schema: chatCompletionRequestSchema, required: true },
    responses: { 200: 'A chat completion, or an SSE stream of chunks', ...facadeErrors },
  },
  {
    method: 'post',
    path: '/v1/responses',
    tag: 'facade',
    summary: 'Responses API (OpenAI-compatible); `stream: true` answers named SSE events',
    body: { name: 'ResponsesRequest', schema: responsesRequestSchema, required: true },
    responses: { 200: 'A Response object, or an SSE stream of events', ...facadeErrors },
  },
  {
    method: 'post',
    path: '/v1/embeddings',
    tag: 'facade',
    summary: 'Embeddings (OpenAI-compatible)',
    body: { name: 'EmbeddingsRequest', schema: embeddingsRequestSchema, required: true },
    responses: { 200: 'A list of embeddings', ...facadeErrors },
  },
  {
    method: 'post',
    path: '/v1/audio/transcriptions',
    tag: 'facade',
    summary:
      'Speech to text (OpenAI-compatible): a multipart `file` (at most `limits.maxAudioBytes`) and `model`; `response_format` json, text or verbose_json',
    body: {
      name: 'TranscriptionRequest',
      schema: transcriptionRequestSchema.extend({
        file: z.string().meta({ contentMediaType: 'application/octet-stream', description: 'The audio file, with its name' }),
      }),
      required: true,
      type: 'multipart/form-data',
    },
    responses: {
      200: 'The transcript: JSON (`json`, `verbose_json`) or plain text (`text`)',
      ...facadeErrors,
      404: 'No such audio model',
      413: 'The file is larger than limits.maxAudioBytes',
    },
  },
  {
    method: 'get',
    path: '/v1/models',
    tag: 'facade',
    summary: 'The models and routes served',
    responses: { 200: 'A list of models', 401: facadeErrors[401] },
  },
  {
    method: 'get',
    path: '/v1/models/{id}',
    tag: 'facade',
    summary: 'One model (its id may contain slashes)',
    responses: { 200: 'The model', 401: facadeErrors[401], 404: 'No such model' },
  },
  {
    method: 'post',
    path: '/hooks/{name}',
    tag: 'hooks',
    summary:
      'An inbound message. A generic hook takes this body with `Authorization: Bearer <hook token>`; Slack, Telegram, Discord, WhatsApp, Mattermost, Teams and mapped hooks take their senders’ own signed payloads (messages, and clicks on approval buttons: Slack’s form-encoded interactivity payloads too).',
    body: { name: 'GenericHookMessage', schema: genericBodySchema, required: true },
    responses: {
      200: 'The platform’s expected answer',
      202: 'Queued: `{id}`',
      400: 'Invalid body',
      401: 'Bad signature or token',
      404: 'No such hook',
      503: 'Queue unavailable',
    },
  },
  {
    method: 'get',
    path: '/hooks/{name}',
    tag: 'hooks',
    summary:
      'A platform’s subscription handshake (WhatsApp: `hub.mode`, `hub.verify_token`, `hub.challenge`); other hooks answer 405',
    responses: {
      200: 'The challenge, as text',
      400: 'Malformed challenge',
      403: 'Wrong verify token',
      404: 'No such hook',
      405: 'This hook has no handshake',
    },
  },
  {
    method: 'get',
    path: '/hooks/{name}/jobs/{id}',
    tag: 'hooks',
    summary: 'A generic hook’s message: queued, active, completed (with its reply) or failed',
    responses: { 200: 'The job', 401: 'Bad token', 404: 'No such job' },
  },
  {
    method: 'post',
    path: '/hooks/{name}/jobs/{id}/approval',
    tag: 'hooks',
    summary: 'Approves or denies the tool call a generic hook’s job waits for: {"approve": true|false}',
    responses: { 200: 'The decision that counts', 400: 'Invalid body', 401: 'Bad token', 404: 'No such job', 409: 'Not waiting' },
  },
  {
    method: 'get',
    path: '/hooks/{name}/jobs/{id}/stream',
    tag: 'hooks',
    summary: 'The reply as it is written (SSE, resumable with Last-Event-ID)',
    content: 'text/event-stream',
    responses: { 200: 'Server-Sent Events', 401: 'Bad token', 404: 'No such job' },
  },
  { method: 'get', path: '/health', tag: 'health', summary: 'The process is up', responses: { 200: 'Up' } },
  {
    method: 'get',
    path: '/ready',
    tag: 'health',
    summary: 'Redis answers',
    responses: { 200: 'Ready', 503: 'Not ready' },
  },
  {
    method: 'get',
    path: '/status',
    tag: 'health',
    summary: 'Channels, queues, workers and deployments, the same from every API process',
    responses: { 200: 'The status record', 401: facadeErrors[401] },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'admin',
    summary: 'Prometheus metrics (text exposition format) of this API process and the shared gauges',
    responses: { 200: 'Metrics in the Prometheus text format', ...adminErrors, 404: 'Metrics are off (metrics.enabled: false)' },
  },
  {
    method: 'get',
    path: '/admin/status',
    tag: 'admin',
    summary: 'The /status record, for holders of an admin key',
    responses: { 200: 'The status record', ...adminErrors },
  },
  {
    method: 'get',
    path: '/admin/activity',
    tag: 'admin',
    summary: 'Messages completed and failed, and latency, per minute',
    query: activityQuerySchema,
    responses: { 200: 'One entry per minute, oldest first', 400: 'Invalid query', ...adminErrors },
  },
  {
    method: 'get',
    path: '/admin/usage',
    tag: 'admin',
    summary: 'Requests, tokens and cost per API key, model or hook over UTC days',
    query: usageQuerySchema,
    responses: { 200: 'One row per key, model or hook, sorted by name', 400: 'Invalid query', ...adminErrors },
  },
  {
    method: 'get',
    path: '/admin/jobs',
    tag: 'admin',
    summary: 'Hook jobs by state (and hook), newest first, with their error',
    query: listJobsQuerySchema,
    responses: { 200: 'A list of jobs', 400: 'Invalid query', ...adminErrors, 404: 'No such hook' },
  },
  {
    method: 'post',
    path: '/admin/jobs/{id}/retry',
    tag: 'admin',
    summary: 'Runs a failed job again: a failed delivery is re-sent from the stored reply, without asking the model again',
    responses: { 202: 'Queued again', ...adminErrors, 404: 'No such job', 409: 'The job has not failed' },
  },
  {
    method: 'post',
    path: '/admin/hooks/{name}/retry',
    tag: 'admin',
    summary: 'Retries a hook’s failed jobs, oldest failure first',
    body: { name: 'BulkRetryRequest', schema: bulkRetryBodySchema, required: false },
    responses: { 202: 'The jobs queued again', 400: 'Invalid body', ...adminErrors, 404: 'No such hook' },
  },
  {
    method: 'get',
    path: '/admin/pairing',
    tag: 'admin',
    summary: 'Pairing requests waiting for a decision (hook, platform user, name, code, age), oldest first',
    responses: { 200: 'A list of pairing requests', ...adminErrors },
  },
  {
    method: 'post',
    path: '/admin/pairing/{code}/approve',
    tag: 'admin',
    summary: 'Approves a pairing request: the person may talk to the hook’s bot from now on, in every process',
    responses: { 200: 'Approved: the hook and the person', ...adminErrors, 404: 'No pending request has this code' },
  },
  {
    method: 'post',
    path: '/admin/pairing/{code}/deny',
    tag: 'admin',
    summary: 'Denies a pairing request: the code is gone; the person’s next message gets a new one',
    responses: { 200: 'Denied: the hook and the person', ...adminErrors, 404: 'No pending request has this code' },
  },
  {
    method: 'delete',
    path: '/admin/hooks/{name}/users/{id}',
    tag: 'admin',
    summary: 'Revokes a person an operator approved: their next direct message is treated as a stranger’s',
    responses: { 200: 'Revoked', ...adminErrors, 404: 'No such hook, or the person was not approved' },
  },
  {
    method: 'get',
    path: BULL_BOARD_PATH,
    tag: 'admin',
    summary: 'Bull Board, BullMQ’s UI (and its API under this path); HTTP Basic with an admin key as the password',
    content: 'text/html',
    responses: { 200: 'The Bull Board page', 401: 'Missing or wrong admin key' },
  },
  {
    method: 'get',
    path: '/dashboard',
    tag: 'admin',
    summary: 'The operator’s live dashboard (the page asks for an admin key; it holds no data itself)',
    content: 'text/html',
    responses: { 200: 'The page' },
  },
  {
    method: 'get',
    path: '/dashboard/{file}',
    tag: 'admin',
    summary: 'The dashboard’s scripts and styles',
    content: 'text/javascript',
    responses: { 200: 'The file', 404: 'No such file' },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'docs',
    summary: 'This document',
    responses: { 200: 'OpenAPI 3.1' },
  },
];
