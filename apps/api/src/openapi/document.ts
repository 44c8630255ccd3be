import { errorBodySchema } from '@switchboard/protocol';
import { z } from 'zod';
import { type Guard, ROUTES } from '../route-policy.js';
import { OPERATIONS, type Operation } from './operations.js';

type Json = Record<string, unknown>;

type Scheme = 'apiKey' | 'adminKey' | 'adminBrowser' | 'hookToken';

/** The security scheme of each guard; null: no credentials in headers (a handshake checks its query). */
const SCHEME_OF: Record<Guard, Scheme | null> = {
  public: null,
  apiKey: 'apiKey',
  operator: 'adminKey',
  boardLogin: 'adminBrowser',
  hook: 'hookToken',
  handshake: null,
};

/** `/hooks/:name` and `/v1/models/*id` as OpenAPI writes them. */
const openApiPath = (path: string) => path.replace(/[:*](\w+)/g, '{$1}');

const GUARDS = new Map(ROUTES.map((route) => [`${route.method.toLowerCase()} ${openApiPath(route.path)}`, route.guard]));

/** The operation's `security`, from its route's guard; an operation without one is a mistake of ours. */
function securityOf(operation: Operation): Json[] {
  const guard = GUARDS.get(`${operation.method} ${operation.path}`);
  if (!guard) throw new Error(`route-policy.ts has no route for ${operation.method.toUpperCase()} ${operation.path}`);
  const scheme = SCHEME_OF[guard];
  return scheme ? [{ [scheme]: [] }] : [];
}

const SECURITY: Record<Scheme, Json> = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`apiKeys`); open when none are configured.' },
  adminKey: { type: 'http', scheme: 'bearer', description: 'An admin key (`adminKeys`); API keys never open these routes.' },
  adminBrowser: {
    type: 'http',
    scheme: 'basic',
    description: 'Any user name, an admin key as the password (or the Bearer admin key).',
  },
  hookToken: { type: 'http', scheme: 'bearer', description: 'A generic hook’s token (also as `X-Hook-Token`).' },
};

/**
 * The OpenAPI 3.1 document, generated from the routes' zod schemas (operations.ts). JSON Schema
 * 2020-12 is OpenAPI 3.1's own dialect, so `z.toJSONSchema` output goes in as it is; what it puts
 * under `$defs` (recursive parts) is hoisted into `components.schemas` so every `$ref` resolves
 * from the document's root.
 */
export function openApiDocument(version: string): Json {
  const schemas: Record<string, Json> = {};
  addComponent(schemas, 'ErrorBody', errorBodySchema, 'output');
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of OPERATIONS) {
    if (operation.body) addComponent(schemas, operation.body.name, operation.body.schema, 'input');
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = describeOperation(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard',
      version,
      description: 'A self-hosted multi-channel chatbot hub with an OpenAI-compatible facade.',
    },
    tags: [
      { name: 'facade', description: 'OpenAI-compatible API' },
      { name: 'hooks', description: 'Inbound webhooks of the channels' },
      { name: 'health', description: 'Health and status' },
      { name: 'admin', description: 'Operator routes, behind admin keys' },
      { name: 'docs', description: 'This description' },
    ],
    paths,
    components: { schemas, securitySchemes: SECURITY },
  };
}

/** Adds `schema` as the component `name`, and its `$defs` as `<name>_<def>` beside it. */
function addComponent(schemas: Record<string, Json>, name: string, schema: z.ZodType, io: 'input' | 'output'): void {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, Json>;
  delete json.$defs;
  const rename = (ref: string) => `${name}_${ref}`;
  const relink = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(relink);
    if (!value || typeof value !== 'object') return value;
    const out: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        out.$ref =
          inner === '#'
            ? `#/components/schemas/${name}`
            : inner.replace(/^#\/\$defs\/(.+)$/, (_, def) => `#/components/schemas/${rename(def)}`);
      } else {
        out[key] = relink(inner);
      }
    }
    return out;
  };
  schemas[name] = relink(json) as Json;
  for (const [def, schemaOfDef] of Object.entries(defs)) schemas[rename(def)] = relink(schemaOfDef) as Json;
}

function describeOperation(operation: Operation): Json {
  const parameters: Json[] = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  for (const [name, field] of Object.entries(operation.query?.shape ?? {})) {
    const schema = z.toJSONSchema(field as z.ZodType, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
    delete schema.$schema;
    const { description, ...rest } = schema;
    parameters.push({
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: rest,
    });
  }
  const responses: Record<string, Json> = {};
  for (const [status, description] of Object.entries(operation.responses)) {
    const ok = Number(status) < 400;
    const type = ok ? (operation.content ?? 'application/json') : 'application/json';
    const schema = ok
      ? type === 'application/json'
        ? { type: 'object' }
        : { type: 'string' }
      : { $ref: '#/components/schemas/ErrorBody' };
    responses[status] = { description, content: { [type]: { schema } } };
  }
  return {
    operationId: `${operation.method}${operation.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [operation.tag],
    summary: operation.summary,
    security: securityOf(operation),
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: operation.body.required,
            content: {
              [operation.body.type ?? 'application/json']: { schema: { $ref: `#/components/schemas/${operation.body.name}` } },
            },
          },
        }
      : {}),
    responses,
  };
}
