import { invalidRequest } from './errors.js';

/** Deepest JSON accepted in a hook body; platform payloads (Slack blocks) stay well below it. */
export const HOOK_MAX_JSON_DEPTH = 64;

/** Rejects JSON nested deeper than `maxDepth` (400), without recursion, so depth cannot blow the stack. */
export function checkJsonDepth(value: unknown, maxDepth: number): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > maxDepth)
      throw invalidRequest(`The request body is nested deeper than ${maxDepth} levels.`, null, 'json_too_deep');
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
}
