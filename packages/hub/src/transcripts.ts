import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { HubRedis } from './commands/index.js';
import { JOB_FIELDS } from './keys.js';
import { parseRecordedJson } from './recorded-json.js';
import { setFieldOnce } from './tool-ledger.js';

export const heardSchema = z.object({ text: z.string(), memo: z.string() });
/** A voice note as text: the transcript the model gets, and what memory keeps (`[voice 0:14] <transcript>`). */
export type Heard = z.infer<typeof heardSchema>;

/**
 * The transcripts of a job's voice notes, so that each is downloaded and transcribed (and paid
 * for) once per message: a run recording the transcript of the message's `index`-th file sets the
 * job hash's field `sbHeard:<index>` once (HSETNX); a retry reads it and skips the download and
 * the transcription. The fields live and go with the job.
 */
export class Transcripts {
  constructor(
    private readonly redis: HubRedis,
    private readonly queue: Queue,
  ) {}

  /** The transcript an earlier run recorded for the message's `index`-th file, if any (one HGET). */
  async read(jobId: string, index: number): Promise<Heard | null> {
    const stored = await this.redis.hget(this.queue.toKey(jobId), `${JOB_FIELDS.heardPrefix}${index}`);
    return stored === null ? null : (heardSchema.safeParse(parseRecordedJson(stored)).data ?? null);
  }

  /** Records the transcript of the message's `index`-th file unless a run did before; returns the recorded one. */
  async record(jobId: string, index: number, heard: Heard): Promise<Heard> {
    return setFieldOnce(this.redis, this.queue.toKey(jobId), `${JOB_FIELDS.heardPrefix}${index}`, heard, heardSchema);
  }
}
