/**
 * Anthropic `stop_reason` → OpenAI `finish_reason`. `refusal` becomes `content_filter`, the
 * OpenAI name for output the model withheld; `model_context_window_exceeded` is a length stop.
 * Anything else (`pause_turn`, reasons added later, null) is reported as a normal `stop`.
 */
export function mapFinishReason(stopReason: string | null | undefined): string {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}
