import {
  chatCompletionRequestSchema,
  embeddingsRequestSchema,
  isPlainChatRequest,
  responsesRequestSchema,
  toErrorResponse,
} from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { parseBody, tooManyMessages } from './parse-body.js';

const DEPTH = 32;
const chat = (body: unknown) => parseBody(chatCompletionRequestSchema, body, DEPTH, '"model" and "messages"', isPlainChatRequest);

/** What the client reads when `run` throws: the status and the OpenAI error body. */
function answerTo(run: () => unknown) {
  try {
    run();
  } catch (err) {
    const { status, body } = toErrorResponse(err);
    return { status, ...body };
  }
  throw new Error('expected a refusal, got a parsed body');
}

describe('parseBody', () => {
  it('returns a common chat request as it came, model and messages and parameters intact', () => {
    const body = { model: 'mock/m', messages: [{ role: 'user', content: 'hi' }], temperature: 0, stream: true };
    expect(chat(body)).toEqual(body);
  });

  it('gives a request the schema completes the defaults it fills in, unknown parameters kept', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], new_openai_param: 1 };
    expect(chat(body)).toEqual({ ...body, model: 'default' });
  });

  it('answers the common request and the same request through zod alike', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi', name: 'dana' },
      ],
    };
    const throughZod = parseBody(chatCompletionRequestSchema, body, DEPTH, '"model" and "messages"');
    expect(chat(body)).toEqual(throughZod);
  });

  it('answers 400 naming the first wrong field as param, with the message saying what is wrong', () => {
    expect(
      answerTo(() =>
        chat({
          model: 'm',
          messages: [
            { role: 'user', content: 'a' },
            { role: 'wizard', content: 'b' },
          ],
        }),
      ),
    ).toEqual({
      status: 400,
      error: {
        type: 'invalid_request_error',
        param: 'messages[1].role',
        code: 'invalid_value',
        message: expect.stringMatching(/^Invalid value for 'messages\[1\]\.role': /),
      },
    });
    expect(answerTo(() => chat({ model: 'm', messages: [{ role: 'user' }] })).error).toMatchObject({
      param: 'messages[0].content',
      message: "Invalid value for 'messages[0].content': a 'user' message needs content",
    });
    expect(answerTo(() => chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 3 })).error.param).toBe(
      'temperature',
    );
  });

  it('names the parameter inside nested Responses items too', () => {
    const refused = answerTo(() =>
      parseBody(
        responsesRequestSchema,
        { model: 'm', input: [{ type: 'function_call_output', output: 'x' }] },
        DEPTH,
        '"model" and "input"',
      ),
    );
    expect(refused).toMatchObject({ status: 400, error: { param: 'input[0].call_id', code: 'invalid_value' } });
  });

  it.each([
    ['an array', [{ model: 'm' }]],
    ['a string', 'hello'],
    ['a number', 42],
    ['null', null],
    ['nothing', undefined],
  ])('answers 400 saying what the body must hold when it is %s', (_name, body) => {
    expect(answerTo(() => parseBody(embeddingsRequestSchema, body, DEPTH, '"model" and "input"'))).toEqual({
      status: 400,
      error: {
        type: 'invalid_request_error',
        param: null,
        code: null,
        message: 'The request body must be a JSON object with "model" and "input".',
      },
    });
  });

  it('answers 400 json_too_deep for a body nested deeper than the limit, before any schema reads it', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5; i++) deep = { a: deep };
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], extra: deep };
    expect(answerTo(() => parseBody(chatCompletionRequestSchema, body, 4, '"model" and "messages"', isPlainChatRequest))).toEqual(
      {
        status: 400,
        error: {
          type: 'invalid_request_error',
          param: null,
          code: 'json_too_deep',
          message: 'The request body is nested deeper than 4 levels.',
        },
      },
    );
    // Within the limit, the same body is taken.
    expect(parseBody(chatCompletionRequestSchema, body, 7, '"model" and "messages"').extra).toEqual(deep);
  });

  it('answers 400 naming messages when the list is empty', () => {
    expect(answerTo(() => chat({ model: 'm', messages: [] })).error).toMatchObject({
      param: 'messages',
      message: "Invalid value for 'messages': messages must hold at least one message",
    });
  });
});

describe('tooManyMessages', () => {
  it('is a 400 too_many_messages naming the limit and the parameter', () => {
    const { status, body } = toErrorResponse(tooManyMessages(50, 'input'));
    expect({ status, ...body }).toEqual({
      status: 400,
      error: {
        type: 'invalid_request_error',
        param: 'input',
        code: 'too_many_messages',
        message: 'At most 50 messages are accepted in one request.',
      },
    });
  });
});
