// The one answer the bench upstream gives, shared with the bench so it can check that what
// came back (directly or through the gateway) is that answer, not just any 200.

/** The reply, in the pieces a stream delivers it in (10 content chunks). */
export const REPLY_PIECES = [
  'Switchboard',
  ' forwards',
  ' this',
  ' request',
  ' to',
  ' the',
  ' upstream',
  ' and',
  ' relays',
  ' the answer.',
];

export const REPLY_TEXT = REPLY_PIECES.join('');

/**
 * The paced model's reply (hub bench, live replies): four sentences in 40 chunks, with some
 * Markdown, so that a streamed and a whole reply of the same length can be compared.
 */
export const PACED_PIECES = [
  ...['**Switchboard**', ...REPLY_PIECES.slice(1)],
  ...['\n\nIt', ' streams', ' the', ' reply', ' into', ' the', ' chat', ' as', ' it', ' comes.'],
  ...['\n\n- It', ' edits', ' one', ' message', ' about', ' once', ' a', ' second', ' until', ' done.'],
  ...['\n- And', ' it', ' records', ' the', ' exchange', ' once,', ' `even`', ' after', ' a', ' crash.'],
];
export const PACED_TEXT = PACED_PIECES.join('');

export const USAGE = {
  prompt_tokens: 42,
  completion_tokens: 12,
  total_tokens: 54,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

/** The key the upstream insists on, so a gateway that forgets to send it shows up as errors. */
export const API_KEY = 'sk-bench';
