import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface SpawnedProcess {
  child: ChildProcess;
  /** Every line the process wrote to stdout or stderr so far. */
  output: string[];
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Resolves once a line containing `fragment` was written (rejects if the process exits first). */
  waitForOutput(fragment: string): Promise<void>;
}

/** The built API (`apps/api/dist/main.js`) as its own process. */
export function spawnApiProcess(env: Record<string, string>): SpawnedProcess {
  return spawnNode(fileURLToPath(new URL('../../dist/main.js', import.meta.url)), env);
}

/**
 * The built worker (`apps/worker/dist/main.js`) as its own process, with its output captured
 * (unlike `spawnWorkerProcess`), so a test can tell when it has begun to stop.
 */
export function spawnLoggingWorkerProcess(env: Record<string, string>): SpawnedProcess {
  const main = createRequire(import.meta.url)
    .resolve('@switchboard/worker')
    .replace(/index\.js$/, 'main.js');
  return spawnNode(main, env);
}

function spawnNode(main: string, env: Record<string, string>): SpawnedProcess {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const waiters = new Set<{ fragment: string; resolve: () => void }>();
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      output.push(line);
      for (const waiter of waiters) if (line.includes(waiter.fragment)) waiter.resolve();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    output,
    exited,
    waitForOutput(fragment) {
      if (output.some((line) => line.includes(fragment))) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          fragment,
          resolve: () => {
            waiters.delete(waiter);
            resolve();
          },
        };
        waiters.add(waiter);
        void exited.then((code) => {
          if (!waiters.delete(waiter)) return;
          reject(new Error(`exited with ${code} before writing '${fragment}':\n${output.join('\n')}`));
        });
      });
    },
  };
}
