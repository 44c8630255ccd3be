/** One deployment of a route, as the order is drawn over it. */
export interface WeightedDeployment<T> {
  id: string;
  weight: number;
  value: T;
}

/**
 * The order in which a route's deployments are tried for one request. Healthy ones come in a
 * weighted random order — the first drawn by weight, each next one by weight among those left
 * (Efraimidis–Spirakis: sort by `random() ** (1 / weight)`) — so a deployment of weight 2 is
 * asked first twice as often as one of weight 1, and a failure moves on to the others. When
 * every one is cooling down, only the one that recovers first is tried.
 */
export function orderDeployments<T>(
  deployments: readonly WeightedDeployment<T>[],
  coolingForMs: (id: string) => number,
  random: () => number = Math.random,
): T[] {
  const healthy = deployments.filter((d) => coolingForMs(d.id) <= 0);
  if (healthy.length === 0) {
    let first = deployments[0]!;
    for (const d of deployments) if (coolingForMs(d.id) < coolingForMs(first.id)) first = d;
    return [first.value];
  }
  return healthy
    .map((d) => ({ d, key: random() ** (1 / d.weight) }))
    .sort((a, b) => b.key - a.key)
    .map(({ d }) => d.value);
}
