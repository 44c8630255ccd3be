import { describe, expect, it } from 'vitest';
import { ROUTES, routePolicy } from './route-policy.js';

/** A request path for a route: `ops` for every parameter. */
const sample = (path: string) => path.replace(/[:*]\w+/g, 'ops');
const policyOnly = ({ guard, rateLimit, body }: { guard: string; rateLimit: string; body: string }) => ({
  guard,
  rateLimit,
  body,
});

describe('routePolicy', () => {
  it('gives a request to each route of the table that route’s own policy', () => {
    for (const { method, path, ...policy } of ROUTES) {
      expect({ route: `${method} ${path}`, ...policyOnly(routePolicy(method, sample(path))) }).toEqual({
        route: `${method} ${path}`,
        ...policy,
      });
    }
  });

  it('finds a route however the router would: any case, a trailing slash, HEAD as GET', () => {
    for (const path of ['/STATUS', '/status/', '/Status/']) {
      expect(routePolicy('GET', path).guard).toBe('apiKey');
    }
    expect(routePolicy('HEAD', '/status').guard).toBe('apiKey');
    expect(routePolicy('GET', '/Metrics/').guard).toBe('operator');
    expect(routePolicy('GET', '/ADMIN/status').guard).toBe('operator');
    expect(routePolicy('POST', '/HOOKS/support/')).toMatchObject({ rateLimit: 'hook', body: 'own', params: { name: 'support' } });
  });

  it('hands the hook’s name, as written in the path, to the hook’s rate limit', () => {
    expect(routePolicy('POST', '/hooks/support').params).toEqual({ name: 'support' });
    expect(routePolicy('GET', '/hooks/support').rateLimit).toBe('none'); // a handshake is not counted
  });

  it('gives a path no route matches its area’s policy, so a 404 or 405 is asked for credentials first', () => {
    expect(policyOnly(routePolicy('GET', '/v1/unknown'))).toEqual({ guard: 'apiKey', rateLimit: 'client', body: 'json' });
    expect(routePolicy('GET', '/v1').guard).toBe('apiKey');
    expect(routePolicy('POST', '/status').guard).toBe('apiKey'); // another method: the router answers 405
    expect(routePolicy('OPTIONS', '/v1/chat/completions').guard).toBe('apiKey'); // the guard lets preflights by
    expect(routePolicy('DELETE', '/admin/jobs/1').guard).toBe('operator');
    expect(routePolicy('POST', '/metrics').guard).toBe('operator');
    expect(policyOnly(routePolicy('POST', '/admin/queues/api/queues/x/pause'))).toEqual({
      guard: 'boardLogin',
      rateLimit: 'none',
      body: 'own',
    });
    expect(policyOnly(routePolicy('POST', '/hooks/ops/jobs/1'))).toEqual({ guard: 'hook', rateLimit: 'none', body: 'own' });
    expect(policyOnly(routePolicy('POST', '/nowhere'))).toEqual({ guard: 'public', rateLimit: 'none', body: 'json' });
    expect(routePolicy('GET', '/statuses').guard).toBe('public');
    expect(routePolicy('GET', '/administrator').guard).toBe('public');
  });
});
