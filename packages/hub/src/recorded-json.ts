/**
 * JSON the pipeline reads back from Redis (a job hash's fields and data, a memory item, a feed
 * entry), or undefined when it is not JSON: callers validate what they read with their schema, so
 * a field an operator or an older release wrote by hand is ignored, never thrown on.
 */
export function parseRecordedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
