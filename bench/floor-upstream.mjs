// What both reference proxies (bare-proxy.mjs, koa-floor.mjs) share: the config apps/api reads
// (SWITCHBOARD_CONFIG, its first provider), one undici keep-alive Agent, and the model rewrite.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const config = JSON.parse(readFileSync(process.env.SWITCHBOARD_CONFIG, 'utf8'));
const [name, provider] = Object.entries(config.providers)[0];
const url = `${provider.baseUrl.replace(/\/+$/, '')}/chat/completions`;
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
const upstreamHeaders = { 'content-type': 'application/json', authorization: `Bearer ${provider.apiKey}` };

/** Sends the parsed request body upstream (`<provider>/<model>` → `<model>`); the model as asked, and the response. */
export async function forward(body) {
  const model = body.model;
  body.model = model.startsWith(`${name}/`) ? model.slice(name.length + 1) : model;
  const upstream = await request(url, {
    dispatcher: agent,
    method: 'POST',
    headers: upstreamHeaders,
    body: JSON.stringify(body),
  });
  return { model, upstream };
}
