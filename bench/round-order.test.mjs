import { describe, expect, it } from 'vitest';
import { roundOrder } from './round-order.mjs';

const targets = ['direct', 'bare', 'koa', 'gateway', 'gateway×2'].map((name) => ({ name }));
const names = (round) => roundOrder(targets, round).map((t) => t.name);

describe('roundOrder', () => {
  it('runs the Koa floor and the gateway back to back, which goes first alternating round by round', () => {
    for (let round = 1; round <= 6; round++) {
      const order = names(round);
      const first = Math.min(order.indexOf('koa'), order.indexOf('gateway'));
      expect(order.slice(first, first + 2)).toEqual(round % 2 ? ['koa', 'gateway'] : ['gateway', 'koa']);
    }
  });

  it('measures every target once a round and rotates which goes first', () => {
    expect(names(1)).toEqual(['direct', 'bare', 'koa', 'gateway', 'gateway×2']);
    expect(names(2)).toEqual(['bare', 'gateway', 'koa', 'gateway×2', 'direct']);
    expect(names(3)).toEqual(['koa', 'gateway', 'gateway×2', 'direct', 'bare']);
    for (let round = 1; round <= 6; round++) expect([...names(round)].sort()).toEqual(targets.map((t) => t.name).sort());
  });
});
