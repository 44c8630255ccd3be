import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './redis.js';

const batched = new WeakSet<Redis>();

/**
 * Makes the commands sent on `redis` in one turn of the event loop leave in one socket write: its
 * connection is corked at the first command of a turn and uncorked once the turn's I/O callbacks
 * have run (a setImmediate), instead of one write per command. With many jobs in flight, what
 * their I/O callbacks of one turn send goes out together, and Redis answers it together (one read).
 *
 * Nothing else changes: every command still goes through the connection's one stream buffer, so
 * their order on the connection is the order they were sent in; a command waits at most for the
 * rest of the turn; a connection that breaks while corked fails or resends its unanswered
 * commands as ioredis does for any sent but unanswered. Commands of the handshake (before
 * `ready`) and a connection not ready (its offline queue) are sent as before. On a Cluster, each
 * node's connection, as it is added.
 */
export function oneWritePerTurn<T extends RedisClient>(redis: T): T {
  if (redis instanceof Cluster) {
    for (const node of redis.nodes()) batchNode(node);
    redis.on('+node', (node: Redis) => batchNode(node));
  } else batchNode(redis as Redis);
  return redis;
}

function batchNode(redis: Redis): void {
  if (batched.has(redis)) return;
  batched.add(redis);
  let corked: Redis['stream'] | undefined;
  const flush = () => {
    const stream = corked;
    corked = undefined;
    stream?.uncork();
  };
  const send = redis.sendCommand;
  redis.sendCommand = function (this: Redis, command, stream) {
    if (corked === undefined && stream === undefined && this.status === 'ready' && this.stream) {
      corked = this.stream;
      corked.cork();
      setImmediate(flush);
    }
    return send.call(this, command, stream);
  };
}
