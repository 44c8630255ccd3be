import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import type { RedisClient } from './commands/index.js';

/** How long one WAIT waits for replicas at most. */
export const REPLICA_WAIT_MS = 1_000;

/** A connection WAIT can be sent on: the client itself, or one node of a cluster. */
type Connection = Pick<RedisClient, 'call'>;

/**
 * Redis WAIT (https://redis.io/docs/latest/commands/wait/): blocks until `replicas` replicas have
 * acknowledged every write sent before it *on the same connection*, or the time-out. On a cluster
 * it goes to the connection of the master that serves `key`'s slot: ioredis keeps one connection
 * per node and sends a slot's commands (BullMQ's included) through it. True when enough replicas
 * answered in time.
 *
 * A WAIT blocks its connection, and every command behind it, until it returns: one WAIT per
 * accept let a master without a replica (after a failover, until the old master comes back as
 * one) take one accept a second, every other command to that master stuck behind the queue of
 * WAITs (the cluster failover test's 'never accepted' after 60 s). So a connection has at most
 * one WAIT in flight, and one more gathering the callers that came after it was sent
 * (`SharedWait`): a caller waits for at most two (`2 * REPLICA_WAIT_MS`), and none is sent while
 * the master has fewer replicas connected than asked for (INFO replication first): not confirmed
 * at once.
 */
export async function waitForReplicas(redis: RedisClient, key: string, replicas: number): Promise<boolean> {
  const node = redis instanceof Cluster ? masterOf(redis, key) : redis;
  if (!node) return false;
  let waits = shared.get(node);
  if (!waits) {
    waits = new SharedWait(node);
    shared.set(node, waits);
  }
  try {
    return (await waits.next(replicas)) >= replicas;
  } catch {
    // The message is queued all the same: not confirmed, not refused.
    return false;
  }
}

const shared = new WeakMap<Connection, SharedWait>();

/**
 * The WAITs of one connection. Whoever calls has had the replies to its writes, so a WAIT sent
 * from now on covers them (it runs after them on the connection); one sent before may not. The
 * callers that come while a WAIT is in flight share the next one, sent when that returns and
 * asking for the most replicas any of them wants.
 */
class SharedWait {
  /** Settles (never rejects) once the WAIT in flight has returned or failed, the connection free again. */
  #inFlight: Promise<void> | undefined;
  #gathering: { replicas: number; answer: Promise<number> } | undefined;

  constructor(private readonly connection: Connection) {}

  /** The number of replicas a WAIT sent after this call found (it asked for at least `replicas`). */
  next(replicas: number): Promise<number> {
    if (!this.#inFlight) return this.#send(replicas);
    if (this.#gathering) {
      this.#gathering.replicas = Math.max(this.#gathering.replicas, replicas);
      return this.#gathering.answer;
    }
    const gathering: { replicas: number; answer: Promise<number> } = { replicas, answer: Promise.resolve(0) };
    gathering.answer = this.#inFlight.then(() => {
      this.#gathering = undefined;
      return this.#send(gathering.replicas);
    });
    this.#gathering = gathering;
    return gathering.answer;
  }

  #send(replicas: number): Promise<number> {
    const answer = replicasInReach(this.connection).then((inReach) =>
      inReach < replicas ? inReach : this.connection.call('WAIT', replicas, REPLICA_WAIT_MS).then(Number),
    );
    // Rejections are the callers' (waitForReplicas catches them); this one only marks the end.
    const inFlight: Promise<void> = answer.then(
      () => this.#done(inFlight),
      () => this.#done(inFlight),
    );
    this.#inFlight = inFlight;
    return answer;
  }

  #done(inFlight: Promise<void>): void {
    if (this.#inFlight === inFlight) this.#inFlight = undefined;
  }
}

/**
 * The replicas connected to the master now (`connected_slaves` of INFO replication, which does
 * not block; a replica still syncing counts): with fewer than asked for, a WAIT could only run
 * out its time, holding the connection a second for nothing. 0 when the node is not a master.
 */
async function replicasInReach(connection: Connection): Promise<number> {
  const info = String(await connection.call('INFO', 'replication'));
  if (!/^role:master\r?$/m.test(info)) return 0;
  return Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
}

function masterOf(cluster: Cluster, key: string) {
  const address = cluster.slots[calculateSlot(key)]?.[0];
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === address);
}
