import fc from 'fast-check';
import type { RawRequest } from './raw-client.js';

/**
 * fast-check arbitraries for requests nobody should send: header values at the edge of what HTTP
 * allows, junk paths, and bodies that are broken, huge, deep, polluting or not UTF-8 at all.
 * Everything here is what a real client can put on the wire; only what Node's own HTTP parser
 * refuses before the app sees it (raw non-ASCII in a path, control bytes in a header value,
 * headers over 16 KiB) is left out.
 */

export const KIB = 1024;
const byte = (code: number) => String.fromCharCode(code);
export const text = (value: string) => Buffer.from(value, 'utf8');

// ---------------------------------------------------------------------------------------------
// Showing a request in a counterexample

export function describeRequest({ method, path, headers, body }: RawRequest): string {
  const cut = (value: string, max: number) => (value.length > max ? `${value.slice(0, max)}… (${value.length} chars)` : value);
  const shownHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, cut(value, 120)]));
  // latin1 shows every byte, the invalid UTF-8 ones included.
  const shownBody = body === undefined ? 'none' : `${JSON.stringify(cut(body.toString('latin1'), 300))} (${body.length} bytes)`;
  return `${method} ${cut(path, 200)} headers=${JSON.stringify(shownHeaders)} body=${shownBody}`;
}

/** A request that fast-check prints readably in a counterexample: long values cut, bytes shown. */
export function shown(request: RawRequest): RawRequest {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}

/** Header values without the undefined ones (a header left out). */
export function headersOf(...parts: Record<string, string | undefined>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of parts) for (const [name, value] of Object.entries(part)) if (value !== undefined) out[name] = value;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Header values: visible ASCII, space, tab and obs-text bytes (0x80–0xff)

const headerChar = fc
  .oneof(
    { weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 3, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map(byte);

export const headerText = (maxLength: number) => fc.string({ unit: headerChar, maxLength });

/** Up to 4,000 characters: long, yet three of them and a long path stay under Node's 16 KiB. */
export const longHeaderText = fc
  .tuple(headerText(16), fc.integer({ min: 200, max: 4000 }))
  .map(([unit, length]) => (unit || 'x').repeat(Math.ceil(length / (unit.length || 1))).slice(0, length));

export const requestId = fc.oneof(fc.stringMatching(/^[\w.:-]{1,128}$/), headerText(200), longHeaderText);

/** Mostly JSON (or none, which is read as JSON), then every kind of wrong. */
export const contentType = fc.oneof(
  { weight: 16, arbitrary: fc.constant('application/json') },
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=UTF-16',
      'application/json; charset=latin1',
      'application/json; charset=bogus-42',
      'application/json;charset="utf-8"',
      'application/json; charset=',
      'application/json; boundary=x; charset=utf-8; charset=ascii',
      'APPLICATION/JSON',
      'application/vnd.api+json',
      'application/merge-patch+json',
      'text/plain',
      'text/plain; charset=utf-8',
      'text/json',
      'multipart/form-data; boundary=----fuzz',
      'multipart/form-data',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/octet-stream',
      '*/*',
      'application/',
      '/json',
      'json',
      ';',
      '',
    ),
  },
  { weight: 2, arbitrary: headerText(80) },
);

/** A Bearer key: mostly `key`, else near misses, other schemes, none or junk. */
export function authorization(key: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 24, arbitrary: fc.constant(`Bearer ${key}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        `bearer ${key}`,
        `BEARER \t${key}  `,
        `Bearer ${key}x`,
        `Bearer ${key.slice(0, -1)}`,
        `Bearer ${key} ${key}`,
        `Basic ${key}`,
        'Bearer',
        'Bearer ',
        '',
      ),
    },
    { weight: 1, arbitrary: headerText(300) },
    { weight: 1, arbitrary: headerText(100).map((token) => `Bearer ${token}`) },
  );
}

/** Headers any request may carry (each one maybe left out); `origin` mostly the allowed one. */
export function commonHeaders(allowedOrigin: string) {
  return fc.record(
    {
      'x-request-id': requestId,
      accept: fc.oneof(fc.constantFrom('application/json', 'text/event-stream', '*/*'), headerText(40)),
      origin: fc.oneof(
        fc.constant(allowedOrigin),
        fc.constantFrom('null', 'https://evil.example', `${allowedOrigin}.evil`),
        headerText(60),
      ),
      'access-control-request-method': fc.oneof(fc.constantFrom('POST', 'GET'), headerText(20)),
      'access-control-request-headers': headerText(200),
      'x-forwarded-for': headerText(60),
    },
    { requiredKeys: [] },
  );
}

// ---------------------------------------------------------------------------------------------
// Methods and paths: printable ASCII, with percent-encoded junk

export const method = fc.oneof(
  { weight: 6, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
  // CONNECT opens a tunnel: a request Koa never sees.
  {
    weight: 1,
    arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'SEARCH', 'PURGE', 'LOCK', 'MKCOL', 'REPORT', 'QUERY', 'M-SEARCH', 'SOURCE'),
  },
);

const pathChar = fc
  .integer({ min: 0x21, max: 0x7e })
  .filter((c) => c !== 0x2f && c !== 0x3f && c !== 0x23)
  .map(byte);
const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEFxG%'.split(''));
const percentJunk = fc.oneof(
  fc.constantFrom(
    '%',
    '%%',
    '%Z',
    '%ZZ',
    '%0',
    '%00',
    '%2F',
    '%2f',
    '%5C',
    '%2e%2e',
    '%E0%A4%A',
    '%C0%AF',
    '%FF%FE',
    '%ED%A0%80',
    '%F0%9F%98',
    '%F0%9F%98%80',
    '%u0041',
    '%25',
    '%250',
    '%0A',
    '%0D%0A',
    '%3F',
    '%23',
    '%20',
  ),
  fc.tuple(hexDigit, hexDigit).map(([a, b]) => `%${a}${b}`),
);

export const segment = fc.oneof(
  fc.webSegment(),
  fc.string({ unit: pathChar, maxLength: 24 }),
  fc.array(fc.oneof(percentJunk, pathChar), { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')),
  fc.constantFrom('', '.', '..', 'chat', 'completions', 'models', 'hooks', 'jobs', 'generic', 'mock', 'local', 'echo'),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'default'),
);

export const longSegment = fc
  .tuple(fc.oneof(pathChar, percentJunk), fc.integer({ min: 500, max: 4000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

/** Path segments; at most one of them long, so the request line stays under Node's header limit. */
export const segments = (max: number) =>
  fc
    .tuple(fc.array(segment, { maxLength: max }), fc.option(longSegment, { freq: 12, nil: undefined }), fc.nat())
    .map(([parts, long, at]) => (long === undefined ? parts : parts.toSpliced(at % (parts.length + 1), 0, long)));

export const query = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc
      .string({
        unit: fc
          .integer({ min: 0x21, max: 0x7e })
          .filter((c) => c !== 0x23)
          .map(byte),
        maxLength: 40,
      })
      .map((q) => `?${q}`),
  },
);

// ---------------------------------------------------------------------------------------------
// JSON values and mutations of valid payloads

export const anyValue = fc.anything({ maxDepth: 3 });

export function serialize(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return 'not json';
  }
}

/** `base` with at most two fields replaced (by a plausible value or by anything) and maybe a few added. */
export function mutated(
  base: Record<string, unknown>,
  plausible: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const names = [...new Set([...Object.keys(base), ...Object.keys(plausible)])];
  const replacement = (name: string) => (plausible[name] ? fc.oneof(plausible[name], anyValue) : anyValue);
  const patch = fc
    .subarray(names, { maxLength: 2 })
    .chain((chosen) => fc.tuple(...chosen.map((name) => replacement(name).map((value) => [name, value] as const))));
  const extra = fc.option(fc.dictionary(fc.string({ maxLength: 12 }), anyValue, { maxKeys: 2 }), { freq: 4, nil: {} });
  return fc.tuple(patch, extra).map(([entries, added]) => Object.assign({ ...base }, Object.fromEntries(entries), added));
}

// ---------------------------------------------------------------------------------------------
// Chat requests: valid ones with wrong fields, and ones assembled from scratch

export const VALID_CHAT = { model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const VALID_CHAT_TEXT = JSON.stringify(VALID_CHAT);

const numberish = fc.oneof(fc.double(), fc.integer({ min: -5, max: 5 }), fc.integer(), anyValue);
const contentPart = fc.record(
  {
    type: fc.oneof(fc.constantFrom('text', 'image_url', 'input_audio', 'file', 'refusal'), anyValue),
    text: fc.oneof(fc.string(), anyValue),
    image_url: fc.oneof(fc.record({ url: fc.oneof(fc.webUrl(), fc.string()) }), anyValue),
  },
  { requiredKeys: [] },
);
const chatMessage = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        role: fc.oneof(fc.constantFrom('user', 'system', 'assistant', 'developer', 'tool', 'function', 'wizard'), anyValue),
        content: fc.oneof(fc.string(), fc.array(contentPart, { maxLength: 3 }), fc.constant(null), anyValue),
        name: fc.oneof(fc.string(), anyValue),
        tool_call_id: fc.oneof(fc.string(), anyValue),
        tool_calls: anyValue,
      },
      { requiredKeys: ['role', 'content'] },
    ),
  },
  { weight: 1, arbitrary: anyValue },
);
const chatFields: Record<string, fc.Arbitrary<unknown>> = {
  model: fc.oneof(
    fc.constantFrom('mock/gpt-4o-mini', 'default', 'gpt-4o-mini', 'local/echo', 'mock/', '/', '', 'nobody/gpt', '__proto__'),
    fc.string(),
  ),
  messages: fc.array(chatMessage, { minLength: 1, maxLength: 4 }),
  stream: fc.boolean(),
  stream_options: fc.record({ include_usage: fc.oneof(fc.boolean(), anyValue) }, { requiredKeys: [] }),
  temperature: numberish,
  top_p: numberish,
  n: numberish,
  max_tokens: numberish,
  max_completion_tokens: numberish,
  stop: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 6 })),
  presence_penalty: numberish,
  frequency_penalty: numberish,
  seed: numberish,
  user: fc.string(),
  response_format: fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'xml') }),
  tools: fc.array(
    fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string(), parameters: anyValue }) }),
    {
      maxLength: 2,
    },
  ),
  tool_choice: fc.constantFrom('auto', 'none', 'required'),
  logprobs: fc.boolean(),
  parallel_tool_calls: fc.boolean(),
};

/** Valid chat requests with a field or two of the wrong type (or a wrong value of the right one). */
export const chatBody = mutated(VALID_CHAT, chatFields).map((body) => text(serialize(body)));

/** Chat requests assembled from scratch: any subset of the fields, each plausible or not. */
export const chatLikeBody = fc
  .record(Object.fromEntries(Object.entries(chatFields).map(([name, arb]) => [name, fc.oneof(arb, anyValue)])), {
    requiredKeys: [],
  })
  .map((body) => text(serialize(body)));

// ---------------------------------------------------------------------------------------------
// Responses and embeddings requests

export const VALID_RESPONSES = { model: 'mock/gpt-4o-mini', input: 'hi' };
export const VALID_EMBEDDINGS = { model: 'mock/embed', input: 'hi' };

const responsesPart = fc.record(
  {
    type: fc.oneof(fc.constantFrom('input_text', 'output_text', 'input_image', 'refusal', 'input_file', 'input_audio'), anyValue),
    text: fc.oneof(fc.string(), anyValue),
    image_url: fc.oneof(fc.webUrl(), fc.string(), anyValue),
    file_id: fc.string(),
    refusal: fc.oneof(fc.string(), anyValue),
    detail: fc.constantFrom('low', 'high', 'auto'),
  },
  { requiredKeys: [] },
);
const partsOrText = fc.oneof(fc.string(), fc.array(responsesPart, { maxLength: 3 }), anyValue);
const inputItem = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        type: fc.constantFrom('message', 'reasoning', 'item_reference', 'web_search_call'),
        role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'developer', 'tool', 'wizard'), anyValue),
        content: partsOrText,
      },
      { requiredKeys: ['role', 'content'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        type: fc.constant('function_call'),
        call_id: fc.oneof(fc.string(), anyValue),
        name: fc.oneof(fc.string(), anyValue),
        arguments: fc.oneof(fc.json(), fc.string(), anyValue),
      },
      { requiredKeys: ['type'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('function_call_output'), call_id: fc.oneof(fc.string(), anyValue), output: partsOrText },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 1, arbitrary: anyValue },
);
const responsesFields: Record<string, fc.Arbitrary<unknown>> = {
  model: fc.oneof(
    fc.constantFrom('mock/gpt-4o-mini', 'default', 'pair', 'local/echo', 'mock/embed', 'nobody/x', ''),
    fc.string(),
  ),
  input: fc.oneof(fc.string(), fc.array(inputItem, { minLength: 1, maxLength: 4 })),
  instructions: fc.string(),
  stream: fc.boolean(),
  temperature: fc.oneof(fc.constant(0), numberish),
  top_p: numberish,
  max_output_tokens: numberish,
  tools: fc.array(
    fc.record(
      {
        type: fc.constantFrom('function', 'web_search', 'file_search', 'mcp'),
        name: fc.string(),
        parameters: anyValue,
        strict: fc.boolean(),
        // mcp tools: a label no server has, approvals, a URL, filters of any shape
        server_label: fc.oneof(fc.constantFrom('tickets', 'nowhere'), fc.string()),
        require_approval: fc.oneof(fc.constantFrom('never', 'always'), anyValue),
        allowed_tools: fc.oneof(fc.array(fc.string(), { maxLength: 2 }), anyValue),
        server_url: fc.string(),
      },
      { requiredKeys: ['type'] },
    ),
    { maxLength: 2 },
  ),
  tool_choice: fc.oneof(
    fc.constantFrom('auto', 'none', 'required'),
    fc.record({ type: fc.constant('function'), name: fc.string() }),
  ),
  text: fc.record({
    format: fc.oneof(
      fc.record({ type: fc.constantFrom('text', 'json_object', 'xml') }),
      fc.record(
        { type: fc.constant('json_schema'), name: fc.string(), schema: anyValue, strict: fc.boolean() },
        { requiredKeys: ['type'] },
      ),
    ),
  }),
  store: fc.boolean(),
  previous_response_id: fc.string(),
  background: fc.boolean(),
  parallel_tool_calls: fc.boolean(),
  metadata: fc.dictionary(fc.string({ maxLength: 20 }), fc.oneof(fc.string(), anyValue), { maxKeys: 3 }),
  user: fc.string(),
  reasoning: fc.record({ effort: fc.oneof(fc.constantFrom('low', 'high'), anyValue) }),
};

/** Valid Responses requests with a field or two wrong. */
export const responsesBody = mutated(VALID_RESPONSES, responsesFields).map((body) => text(serialize(body)));

/** Responses requests assembled from scratch. */
export const responsesLikeBody = fc
  .record(Object.fromEntries(Object.entries(responsesFields).map(([name, arb]) => [name, fc.oneof(arb, anyValue)])), {
    requiredKeys: [],
  })
  .map((body) => text(serialize(body)));

const embeddingsFields: Record<string, fc.Arbitrary<unknown>> = {
  model: fc.oneof(fc.constantFrom('mock/embed', 'embed', 'mock/gpt-4o-mini', 'local/echo', 'nobody/x', ''), fc.string()),
  input: fc.oneof(
    fc.string(),
    fc.array(fc.string(), { maxLength: 5 }),
    fc.array(fc.integer({ min: -5, max: 200_000 }), { maxLength: 5 }),
    fc.array(fc.array(fc.nat({ max: 200_000 }), { maxLength: 4 }), { maxLength: 3 }),
  ),
  encoding_format: fc.constantFrom('float', 'base64', 'hex', ''),
  dimensions: fc.oneof(fc.integer({ min: -2, max: 64 }), numberish),
  user: fc.string(),
};

/** Valid embeddings requests with a field or two wrong. */
export const embeddingsBody = mutated(VALID_EMBEDDINGS, embeddingsFields).map((body) => text(serialize(body)));

// ---------------------------------------------------------------------------------------------
// Bodies that attack the parser

/** `"__proto__":{"constructor":…{"polluted":"yes"}}`: a JSON member that pollutes if merged naively. */
export const pollutionMember = fc
  .array(fc.constantFrom('__proto__', 'constructor', 'prototype'), { minLength: 1, maxLength: 3 })
  .map((keys) =>
    keys.reduceRight((inner, key) => `{${JSON.stringify(key)}:${inner}}`, '{"polluted":"yes","isAdmin":true}').slice(1, -1),
  );

/** Adds a member to a JSON object's text (and leaves any other text alone). */
export function withMember(json: string, member: string): string {
  if (!json.startsWith('{') || !json.endsWith('}')) return json;
  return json === '{}' ? `{${member}}` : `${json.slice(0, -1)},${member}}`;
}

/** Valid chat requests with a polluting member at the top, in a message, in pass-through objects… */
const chatPollutionBody = fc
  .tuple(
    pollutionMember,
    fc.constantFrom('top', 'message', 'content-part', 'stream_options', 'response_format', 'tool-parameters', 'alone'),
  )
  .map(([member, at]) => {
    const user = '{"role":"user","content":"hi"}';
    const model = '"model":"mock/gpt-4o-mini"';
    const templates: Record<string, string> = {
      top: `{${model},"messages":[${user}],${member}}`,
      message: `{${model},"messages":[{"role":"user","content":"hi",${member}}]}`,
      'content-part': `{${model},"messages":[{"role":"user","content":[{"type":"text","text":"hi",${member}}]}]}`,
      stream_options: `{${model},"messages":[${user}],"stream":true,"stream_options":{"include_usage":true,${member}}}`,
      response_format: `{${model},"messages":[${user}],"response_format":{"type":"json_object",${member}}}`,
      'tool-parameters': `{${model},"messages":[${user}],"tools":[{"type":"function","function":{"name":"f","parameters":{${member}}}}]}`,
      alone: `{${member}}`,
    };
    return text(templates[at]!);
  });

/** Bodies around the hook limit (256 KiB), above it (300 KB) and around the /v1 limit (1 MiB). */
const hugeBody = fc
  .record({
    size: fc.oneof(
      fc.integer({ min: 256 * KIB - 64, max: 256 * KIB + 64 }),
      fc.integer({ min: 300 * KIB, max: 310 * KIB }),
      fc.integer({ min: 1024 * KIB - 64, max: 1024 * KIB + 64 }),
    ),
    fill: fc.constantFrom('x', 'é', '😀', '"', '\\', '\u0000', ' '),
    at: fc.constantFrom('content', 'model', 'string', 'key', 'whitespace', 'generic-text'),
  })
  .map(({ size, fill, at }) => {
    const [prefix, suffix] = {
      content: ['{"model":"mock/gpt-4o-mini","messages":[{"role":"user","content":"', '"}]}'],
      model: ['{"messages":[{"role":"user","content":"hi"}],"model":"', '"}'],
      string: ['"', '"'],
      key: ['{"', '":1}'],
      whitespace: [VALID_CHAT_TEXT.slice(0, -1), '}'],
      'generic-text': ['{"from":"fuzz","text":"', '"}'],
    }[at]!;
    const unit = at === 'whitespace' ? ' ' : JSON.stringify(fill).slice(1, -1);
    const room = Math.max(0, size - Buffer.byteLength(prefix) - Buffer.byteLength(suffix));
    return text(prefix + unit.repeat(Math.floor(room / Buffer.byteLength(unit))) + suffix);
  });

/** Nesting around the limits (32 for /v1, 64 for hooks) and far past them, closed or not. */
const deepBody = fc
  .record({
    depth: fc.oneof(
      { weight: 2, arbitrary: fc.integer({ min: 28, max: 70 }) },
      { weight: 6, arbitrary: fc.integer({ min: 50, max: 5000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 5000, max: 100_000 }) },
    ),
    shape: fc.constantFrom('array', 'object', 'mixed', 'in-message', 'as-content', 'generic'),
    closed: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  })
  .map(({ depth, shape, closed }) => {
    const [open, value, close] = {
      array: ['[', '1', ']'],
      object: ['{"a":', '1', '}'],
      mixed: ['[{"a":', 'null', '}]'],
      'in-message': ['[', '"x"', ']'],
      'as-content': ['[', '{"type":"text","text":"hi"}', ']'],
      generic: ['{"a":', '1', '}'],
    }[shape]!;
    const nested = open.repeat(depth) + value + (closed ? close.repeat(depth) : '');
    const wrappers: Record<string, (inner: string) => string> = {
      'in-message': (inner) => `{"model":"mock/gpt-4o-mini","messages":[{"role":"user","content":"hi","extra":${inner}}]}`,
      'as-content': (inner) => `{"model":"mock/gpt-4o-mini","messages":[{"role":"user","content":${inner}}]}`,
      generic: (inner) => `{"from":"fuzz","text":"hi","meta":${inner}}`,
    };
    return text(wrappers[shape]?.(nested) ?? nested);
  });

const badUtf8 = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80], // overlong NUL
  [0xc0, 0xaf], // overlong '/'
  [0xc3], // truncated two-byte sequence
  [0xe2, 0x82], // truncated three-byte sequence
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xf8, 0x88, 0x80, 0x80, 0x80], // five-byte form
  [0x80], // lone continuation byte
  [0xbf],
  [0xef, 0xbb, 0xbf], // a byte-order mark
  [0x00],
);

/** Invalid UTF-8 inside otherwise valid requests, and raw random bytes. */
const invalidUtf8Body = fc.oneof(
  fc
    .tuple(
      fc.array(badUtf8, { minLength: 1, maxLength: 6 }),
      fc.constantFrom('content', 'model', 'key', 'start', 'end', 'role', 'text'),
    )
    .map(([bad, at]) => {
      const [prefix, suffix] = {
        content: ['{"model":"mock/gpt-4o-mini","messages":[{"role":"user","content":"', '"}]}'],
        model: ['{"messages":[{"role":"user","content":"hi"}],"model":"', '"}'],
        key: ['{"model":"mock/gpt-4o-mini","messages":[{"role":"user","content":"hi","', '":1}]}'],
        start: ['', VALID_CHAT_TEXT],
        end: [VALID_CHAT_TEXT, ''],
        role: ['{"model":"mock/gpt-4o-mini","messages":[{"role":"', '","content":"hi"}]}'],
        text: ['{"from":"fuzz","text":"', '"}'],
      }[at]!;
      return Buffer.concat([text(prefix), Buffer.from(bad.flat()), text(suffix)]);
    }),
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
);

/** JSON cut off anywhere, maybe with a little junk after the cut. */
const brokenJson = fc
  .tuple(fc.oneof(fc.constant(VALID_CHAT_TEXT), fc.json()), fc.nat(), fc.oneof(fc.constant(''), fc.string({ maxLength: 3 })))
  .map(([json, cut, tail]) => text(json.slice(0, cut % Math.max(1, json.length)) + tail));

/** Every kind of bad body, for any endpoint. */
export const anyBody = fc.oneof(
  { weight: 3, arbitrary: fc.json().map(text) },
  { weight: 3, arbitrary: anyValue.map((value) => text(serialize(value))) },
  { weight: 2, arbitrary: brokenJson },
  { weight: 2, arbitrary: chatPollutionBody },
  { weight: 2, arbitrary: deepBody },
  { weight: 2, arbitrary: invalidUtf8Body },
  { weight: 1, arbitrary: hugeBody },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.alloc(0), text(' '), text('null'), text('""'), text('[]'), text('{}')) },
);

/** Small bodies only, for properties about paths and methods. */
export const smallBody = fc.oneof(
  fc.json().map(text),
  anyValue.map((value) => text(serialize(value))),
  brokenJson,
  invalidUtf8Body,
);
