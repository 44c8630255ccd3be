import { randomInt } from 'node:crypto';
import type { StateKeys } from './keys.js';
import { defineCommands, type RedisClient } from './redis.js';

/** How long a pairing code stays valid: an hour, then the person's next message gets a new one. */
export const PAIRING_TTL_SECONDS = 3600;

/** Requests pending at once, all hooks together: past it, strangers get no code until some are decided or expire. */
export const MAX_PENDING_PAIRINGS = 1000;

/** Codes read aloud or typed: no 0/O, 1/I/L. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

/** One person waiting for an operator's decision. */
export interface PairingRequest {
  code: string;
  hook: string;
  /** The platform's user id. */
  user: string;
  /** The display name the platform sent, if any. */
  name: string | null;
  /** Unix ms when the code was given. */
  createdAt: number;
}

/**
 * KEYS[1] the person's code key (string), KEYS[2] the code's request (hash), KEYS[3] the pending
 * index (sorted set, code → created ms); ARGV: code, hook, user, name, now ms, ttl s, the most
 * requests pending at once, the message to send when approved (JSON, may be '').
 * Returns {code, 1} when a request was made now, {existing code, 0} when one was pending, {'', 0}
 * when too many are pending (expired ones are dropped from the index first).
 */
const REQUEST = `
local existing = redis.call('GET', KEYS[1])
if existing then return {existing, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[5]) - tonumber(ARGV[6]) * 1000)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return {'', 0} end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[6])
redis.call('HSET', KEYS[2], 'hook', ARGV[2], 'user', ARGV[3], 'name', ARGV[4], 'created', ARGV[5], 'notice', ARGV[8])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
return {ARGV[1], 1}
`;

/**
 * KEYS[1] the code's request (hash), KEYS[2] the pending index; ARGV[1] the code, ARGV[2] the
 * prefix of approved-user sets (`…:access:`), ARGV[3] the prefix of the person-code keys, ARGV[4]
 * '1' to approve. Everything in one step, so a code is decided once: a second decision finds
 * nothing. Returns {hook, user, notice} or nil.
 */
const DECIDE = `
local request = redis.call('HMGET', KEYS[1], 'hook', 'user', 'notice')
redis.call('ZREM', KEYS[2], ARGV[1])
if not request[1] then return nil end
redis.call('DEL', KEYS[1])
local person = ARGV[3] .. request[1] .. ':' .. request[2]
if redis.call('GET', person) == ARGV[1] then redis.call('DEL', person) end
if ARGV[4] == '1' then redis.call('SADD', ARGV[2] .. request[1] .. ':users', request[2]) end
return request
`;

type AccessRedis = RedisClient & {
  sbPairingRequest(...args: (string | number)[]): Promise<[string, number]>;
  sbPairingDecide(...args: (string | number)[]): Promise<[string, string, string | null] | null>;
};

/**
 * Who may talk to which hook, shared by every process through Redis: people an operator approved
 * (one set per hook, kept until revoked), pairing requests waiting for a decision (an hour each),
 * and the marks that let a notice go out once per person and window.
 */
export class AccessStore {
  readonly #redis: AccessRedis;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
    /** Requests pending at once, all hooks together. @defaultValue MAX_PENDING_PAIRINGS */
    private readonly maxPending = MAX_PENDING_PAIRINGS,
  ) {
    defineCommands(redis, {
      sbPairingRequest: { numberOfKeys: 3, lua: REQUEST },
      // The approved set and person key are named from ARGV: they share the prefix's hash tag, so
      // on a Cluster they live in the script's slot all the same.
      sbPairingDecide: { numberOfKeys: 2, lua: DECIDE },
    });
    this.#redis = redis as AccessRedis;
  }

  async isApproved(hook: string, user: string): Promise<boolean> {
    return (await this.#redis.sismember(this.keys.accessUsers(hook), user)) === 1;
  }

  /** Takes `user` off the hook's approved people; false when they were not on it. */
  async revoke(hook: string, user: string): Promise<boolean> {
    return (await this.#redis.srem(this.keys.accessUsers(hook), user)) === 1;
  }

  /**
   * The code `user` is to be given: a new one (`created`), the one still pending for them, or
   * none (`code` empty) when `MAX_PENDING_PAIRINGS` are pending.
   *
   * @param notice - What to send the person once approved (the caller's JSON), returned by `decide`.
   */
  async requestPairing(
    hook: string,
    user: string,
    name: string | null,
    now = Date.now(),
    notice = '',
  ): Promise<{ code: string; created: boolean }> {
    const fresh = newCode();
    const [code, created] = await this.#redis.sbPairingRequest(
      this.keys.pairingPerson(hook, user),
      this.keys.pairingCode(fresh),
      this.keys.pairingPending,
      fresh,
      hook,
      user,
      name ?? '',
      now,
      PAIRING_TTL_SECONDS,
      this.maxPending,
      notice,
    );
    return { code, created: created === 1 };
  }

  /** Requests still pending, oldest first (at most `limit`); expired ones are dropped from the index. */
  async pending(limit = 500): Promise<PairingRequest[]> {
    const codes = await this.#redis.zrange(this.keys.pairingPending, 0, limit - 1);
    if (codes.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const code of codes) pipeline.hgetall(this.keys.pairingCode(code));
    const results = (await pipeline.exec()) ?? [];
    const requests: PairingRequest[] = [];
    const expired: string[] = [];
    codes.forEach((code, i) => {
      const fields = results[i]?.[1] as Record<string, string> | undefined;
      if (!fields?.hook || !fields.user) {
        expired.push(code);
        return;
      }
      requests.push({ code, hook: fields.hook, user: fields.user, name: fields.name || null, createdAt: Number(fields.created) });
    });
    if (expired.length > 0) await this.#redis.zrem(this.keys.pairingPending, ...expired);
    return requests;
  }

  /**
   * Approves or denies the request holding `code`: the person it named (and the notice stored
   * with the request), or null when no such request is pending.
   */
  async decide(code: string, approve: boolean): Promise<{ hook: string; user: string; notice: string | null } | null> {
    const decided = await this.#redis.sbPairingDecide(
      this.keys.pairingCode(code),
      this.keys.pairingPending,
      code,
      this.keys.accessUsersPrefix,
      this.keys.pairingPersonPrefix,
      approve ? '1' : '0',
    );
    return decided ? { hook: decided[0], user: decided[1], notice: decided[2] || null } : null;
  }

  /** True the first time in `ttlSeconds` it is asked for this subject: a notice sent once, then silence. */
  async once(subject: string, ttlSeconds: number): Promise<boolean> {
    return (await this.#redis.set(this.keys.accessNotice(subject), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}

/** A pairing code: eight characters of an unambiguous alphabet (31^8 ≈ 8.5e11), from the CSPRNG. */
function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** Whether `text` has the shape of a pairing code (checked before any Redis look-up). */
export function isPairingCode(text: string): boolean {
  return text.length === CODE_LENGTH && [...text].every((c) => CODE_ALPHABET.includes(c));
}
