import { describe, expect, it } from 'vitest';
import { orderDeployments } from './order-deployments.js';

const route = [
  { id: 'a/gpt', weight: 2, value: 'a' },
  { id: 'b/gpt', weight: 1, value: 'b' },
  { id: 'c/gpt', weight: 1, value: 'c' },
];
const healthy = () => 0;

/** A seeded generator, so that the shares below are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('orderDeployments', () => {
  it('lists every healthy deployment once, the first drawn by weight', () => {
    const random = seeded(42);
    const firsts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) {
      const order = orderDeployments(route, healthy, random);
      expect([...order].sort()).toEqual(['a', 'b', 'c']);
      firsts[order[0]!]! += 1;
    }
    // weight 2 of 4: about half the requests go first to a, a quarter to each of the others
    expect(firsts.a! / 4000).toBeCloseTo(0.5, 1);
    expect(firsts.b! / 4000).toBeCloseTo(0.25, 1);
    expect(firsts.c! / 4000).toBeCloseTo(0.25, 1);
  });

  it('leaves out deployments that are cooling down', () => {
    const cooling = (id: string) => (id === 'a/gpt' ? 5_000 : 0);
    for (let i = 0; i < 50; i++) expect(orderDeployments(route, cooling).sort()).toEqual(['b', 'c']);
  });

  it('tries only the deployment that recovers first when all are cooling down', () => {
    const cooling = (id: string) => ({ 'a/gpt': 9_000, 'b/gpt': 2_000, 'c/gpt': 4_000 })[id] ?? 0;
    expect(orderDeployments(route, cooling)).toEqual(['b']);
  });
});
