import { sendJson } from '@switchboard/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../test-support/browser.js';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';
import { DASHBOARD_CSP } from './dashboard.js';

const TOKEN = 'dashboard-hook-token-0123';
const ADMIN_KEY = 'dashboard-admin-key-0123456789';
const WAIT = { timeout: 10_000 };

let platformStatus = 200;

describe('the dashboard in a real Chromium', () => {
  let h: HookHarness;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    [h, browser] = await Promise.all([
      startHookHarness({
        hooks: (url) => ({
          ops: { type: 'generic', token: TOKEN, replyUrl: `${url}/in` },
          // Strangers get a pairing code (posted to replyUrl), which the dashboard approves or denies.
          paired: { type: 'generic', token: TOKEN, replyUrl: `${url}/in`, access: { dm: 'pairing' } },
        }),
        platform: (_req, res) => sendJson(res, platformStatus, { ok: platformStatus === 200 }),
        config: { adminKeys: [ADMIN_KEY] },
      }),
      launchChromium(),
    ]);
    page = await browser.newPage();
    // A CSP violation or a script error is a broken dashboard, whatever the page shows.
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/status of 40[14]/.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const send = async (text: string) => {
    const res = await h.post('ops', JSON.stringify({ text, from: 'dana' }), { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(202);
    return (await res.json()).id as string;
  };
  const usageBy = async (groupBy: 'key' | 'model') => {
    const res = await fetch(`${h.gateway.url}/admin/usage?group_by=${groupBy}`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()).data as {
      model?: string;
      requests: number;
      prompt_tokens: number;
      completion_tokens: number;
      cost: number;
    }[];
  };
  const counter = async (name: string) => Number(await page.locator(`[data-counter="${name}"] strong`).textContent());

  it('shows nothing without the admin key, then the live counters, charts, usage and a working retry', async () => {
    const res = await page.goto(`${h.gateway.url}/dashboard`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toBe(DASHBOARD_CSP);
    await page.locator('#login').waitFor({ state: 'visible', ...WAIT });
    expect(await page.locator('#board').isHidden()).toBe(true);

    await page.fill('#admin-key', ADMIN_KEY);
    await page.click('#login button[type=submit]');
    await page.locator('[data-counter="completed"]').waitFor(WAIT);
    expect(await page.locator('#login').isHidden()).toBe(true);
    // Usage comes from GET /admin/usage: nothing yet under this test's fresh prefix.
    expect(await usageBy('model')).toEqual([]);
    expect(await page.locator('#usage-key tbody').textContent()).toBe('no usage yet');
    expect(await page.locator('#usage-model tbody').textContent()).toBe('no usage yet');
    const completedBefore = await counter('completed');
    const chartBefore = Number(await page.locator('#rate-chart').getAttribute('data-total'));

    // A message answered and delivered moves the counters and the chart, without a reload.
    await send('hello dashboard');
    await page.waitForFunction(
      ([before, chart]) =>
        Number(document.querySelector('[data-counter="completed"] strong')?.textContent) > before &&
        Number(document.querySelector('#rate-chart')?.getAttribute('data-total')) > chart &&
        Number(document.querySelector('[data-counter="in:ops"]')?.textContent) >= 1,
      [completedBefore, chartBefore] as const,
      WAIT,
    );
    expect(await page.locator('#rate-chart rect.bar').count()).toBeGreaterThan(0);
    expect(Number(await page.locator('#latency-chart').getAttribute('data-points'))).toBeGreaterThan(0);
    // The hook's model call shows in the usage by model, as /admin/usage counts it.
    const [used] = await eventually(async () => {
      const rows = await usageBy('model');
      if (rows.length === 0) throw new Error('no usage recorded yet');
      return rows;
    }, 400);
    expect(used).toMatchObject({ requests: 1 });
    await page.waitForFunction(
      (model) => document.querySelector('#usage-model tbody tr td')?.textContent === model,
      String(used!.model),
      WAIT,
    );
    expect(await page.locator('#usage-model tbody tr').first().locator('td').allTextContents()).toEqual([
      String(used!.model),
      '1',
      String(used!.prompt_tokens + used!.completion_tokens),
      `$${Number(used!.cost).toFixed(4)}`,
    ]);

    // A delivery the platform refuses shows up as a failed job, with its error and a retry button.
    platformStatus = 400;
    const id = await send('this one fails');
    const retry = page.locator(`button[data-retry="${id}"]`);
    await retry.waitFor(WAIT);
    expect(await page.locator('#failed tbody').textContent()).toContain('failed with 400');
    expect(await page.locator('#channels tbody').textContent()).toContain('failed with 400');
    const modelCalls = h.modelCalls('this one fails');

    platformStatus = 200;
    await retry.click();
    await retry.waitFor({ state: 'detached', ...WAIT });
    const view = await eventually(async () => {
      const v = await (await fetch(`${h.gateway.url}/hooks/ops/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json();
      if (v.status !== 'completed') throw new Error(v.status);
      return v;
    }, 400);
    expect(view.reply).toMatch(/^reply to: this one fails/);
    const deliveries = h.platform.requests.filter((r) => (r.json as { text?: string }).text === view.reply);
    expect(deliveries.map((r) => r.headers['idempotency-key'])).toEqual([id, id]); // refused, then taken
    expect(h.modelCalls('this one fails')).toBe(modelCalls);
    expect(problems).toEqual([]);
  }, 30_000);

  it('lists pairing requests with Approve and Deny buttons: an approved person is answered, a denied one is not', async () => {
    const ask = async (from: string, text: string) => {
      const res = await h.post('paired', JSON.stringify({ text, from }), { authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(202);
      return (await res.json()).id as string;
    };
    const replyOf = (id: string) =>
      eventually(async () => {
        const v = await (await fetch(`${h.gateway.url}/hooks/paired/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json();
        if (v.status !== 'completed') throw new Error(v.status);
        return v.reply as string;
      }, 400);
    const codeIn = (reply: string) => /approve this code: ([A-Z0-9]{8})/.exec(reply)?.[1] ?? '';

    const annCode = codeIn(await replyOf(await ask('ann', 'hello, may I?')));
    const bobCode = codeIn(await replyOf(await ask('bob', 'me too?')));
    expect(annCode).toMatch(/^[A-Z0-9]{8}$/);
    expect(h.modelCalls('hello, may I?') + h.modelCalls('me too?')).toBe(0);

    const approve = page.locator(`button[data-approve="${annCode}"]`);
    const deny = page.locator(`button[data-deny="${bobCode}"]`);
    await approve.waitFor(WAIT);
    await deny.waitFor(WAIT);
    const annRow = await page.locator('#pairing tbody tr', { has: approve }).locator('td').allTextContents();
    expect(annRow.slice(0, 4)).toEqual(['paired', 'ann', '', annCode]);

    await approve.click();
    await approve.waitFor({ state: 'detached', ...WAIT });
    await deny.click();
    await deny.waitFor({ state: 'detached', ...WAIT });
    await page.waitForFunction(() => document.querySelector('#pairing tbody')?.textContent === 'no pending requests', null, WAIT);

    expect(await replyOf(await ask('ann', 'now?'))).toBe('reply to: now? (history: 0)');
    // Bob was denied: his next message gets a new code, not an answer.
    const again = await replyOf(await ask('bob', 'and now?'));
    expect(codeIn(again)).toMatch(/^[A-Z0-9]{8}$/);
    expect(codeIn(again)).not.toBe(bobCode);
    expect(h.modelCalls('and now?')).toBe(0);
    expect(problems).toEqual([]);
  }, 30_000);
});
