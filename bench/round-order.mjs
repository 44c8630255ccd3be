// The order in which one round of the gateway bench measures its targets.

/**
 * The order of the targets in one round: the others rotated each round, so a drift in the
 * machine's load hits all alike, and the Koa floor and the gateway always back to back, which of
 * the two goes first alternating (ABBA), so that each round's gateway ÷ floor compares two runs
 * seconds apart.
 */
export function roundOrder(targets, round) {
  const pair = targets.filter((t) => t.name === 'koa' || t.name === 'gateway');
  if (round % 2 === 0) pair.reverse();
  const units = targets.flatMap((t) => (t.name === 'koa' ? [pair] : t.name === 'gateway' ? [] : [[t]]));
  return units.flatMap((_, i) => units[(i + round - 1) % units.length]);
}
