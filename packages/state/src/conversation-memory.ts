import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { StateKeys } from './keys.js';

export const memoryMessageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.string() });
export type MemoryMessage = z.infer<typeof memoryMessageSchema>;

/**
 * Per-conversation memory: the last `maxMessages` messages in a Redis list, expiring
 * `ttlSeconds` after the last use. The system prompt is never stored; callers prepend it.
 */
export class ConversationMemory {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly options: { maxMessages: number; ttlSeconds: number },
  ) {}

  async load(conversation: string): Promise<MemoryMessage[]> {
    const key = this.keys.conversation(conversation);
    const [[, items]] = (await this.redis
      .multi()
      .lrange(key, -this.options.maxMessages, -1)
      .expire(key, this.options.ttlSeconds)
      .exec()) as [[Error | null, string[]]];
    return items.flatMap((item) => {
      try {
        const parsed = memoryMessageSchema.safeParse(JSON.parse(item));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
  }

  async append(conversation: string, messages: MemoryMessage[]): Promise<void> {
    const key = this.keys.conversation(conversation);
    await this.redis
      .multi()
      .rpush(key, ...messages.map((m) => JSON.stringify(m)))
      .ltrim(key, -this.options.maxMessages, -1)
      .expire(key, this.options.ttlSeconds)
      .exec();
  }

  async clear(conversation: string): Promise<void> {
    await this.redis.del(this.keys.conversation(conversation));
  }
}
