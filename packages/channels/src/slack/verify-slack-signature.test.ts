import { SAMPLE_NOW, slackRequest, slackSignature } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { verifySlackSignature } from './verify-slack-signature.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BODY = { type: 'event_callback', event_id: 'Ev1', event: { type: 'message', text: 'hi' } };

function expectRefused(run: () => void) {
  const error = appErrorFrom(run);
  expect(error.status).toBe(401);
  expect(error.code).toBe('invalid_signature');
}

describe('verifySlackSignature', () => {
  it('accepts a request signed with the signing secret', () => {
    expect(() => verifySlackSignature(slackRequest(SECRET, BODY), SECRET)).not.toThrow();
  });

  it('accepts a timestamp up to five minutes old or ahead', () => {
    expect(() => verifySlackSignature(slackRequest(SECRET, BODY, { signedAt: SAMPLE_NOW - 300_000 }), SECRET)).not.toThrow();
    expect(() => verifySlackSignature(slackRequest(SECRET, BODY, { signedAt: SAMPLE_NOW + 300_000 }), SECRET)).not.toThrow();
  });

  it('answers 401 when the Slack signature is stale', () => {
    expectRefused(() => verifySlackSignature(slackRequest(SECRET, BODY, { signedAt: SAMPLE_NOW - 301_000 }), SECRET));
  });

  it('answers 401 when the timestamp is more than five minutes in the future', () => {
    expectRefused(() => verifySlackSignature(slackRequest(SECRET, BODY, { signedAt: SAMPLE_NOW + 301_000 }), SECRET));
  });

  it('answers 401 for a signature made with another secret', () => {
    expectRefused(() => verifySlackSignature(slackRequest('another-signing-secret', BODY), SECRET));
  });

  it('answers 401 when the body was tampered with after signing', () => {
    const request = slackRequest(SECRET, BODY);
    request.rawBody = Buffer.from(request.rawBody.toString('utf8').replace('hi', 'ho'));
    expectRefused(() => verifySlackSignature(request, SECRET));
  });

  it('answers 401 when the timestamp was changed after signing', () => {
    const request = slackRequest(SECRET, BODY);
    request.headers['x-slack-request-timestamp'] = String(Math.floor(SAMPLE_NOW / 1000) - 1);
    expectRefused(() => verifySlackSignature(request, SECRET));
  });

  it('answers 401 when either header is missing', () => {
    const noSignature = slackRequest(SECRET, BODY);
    delete noSignature.headers['x-slack-signature'];
    expectRefused(() => verifySlackSignature(noSignature, SECRET));
    const noTimestamp = slackRequest(SECRET, BODY);
    delete noTimestamp.headers['x-slack-request-timestamp'];
    expectRefused(() => verifySlackSignature(noTimestamp, SECRET));
  });

  it('answers 401 for a timestamp that is not a number', () => {
    const request = slackRequest(SECRET, BODY);
    const timestamp = 'yesterday';
    request.headers['x-slack-request-timestamp'] = timestamp;
    request.headers['x-slack-signature'] = slackSignature(SECRET, timestamp, request.rawBody);
    expectRefused(() => verifySlackSignature(request, SECRET));
  });

  it('answers 401 for a signature without the v0= prefix', () => {
    const request = slackRequest(SECRET, BODY);
    request.headers['x-slack-signature'] = String(request.headers['x-slack-signature']).slice(3);
    expectRefused(() => verifySlackSignature(request, SECRET));
  });
});
