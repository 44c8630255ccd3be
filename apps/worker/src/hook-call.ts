import type { ChatMessage } from '@switchboard/protocol';
import type { MeteredCallSpec } from '@switchboard/state';
import type { MessageJob } from './message-job.js';

/** The hook's model call as the meter sees it: the hook pays, under its `budget`. */
export function hookCall(job: MessageJob, messages: ChatMessage[]): MeteredCallSpec {
  const { name, config } = job.hook;
  return { payer: { hook: name, budget: config.budget }, model: config.model, prompt: messages };
}
