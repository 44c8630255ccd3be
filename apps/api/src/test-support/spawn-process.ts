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
  /** The exit code, or a rejection naming the bound when the process is still running after `boundMs`. */
  exitsWithin(boundMs: number): Promise<number | null>;
  /** The lines that parse as JSON log lines, parsed. */
  logLines(): Record<string, unknown>[];
}

/** The built API (`apps/api/dist/main.js`) as its own process. */
export function spawnApiProcess(env: Record<string, string>, args: string[] = []): SpawnedProcess {
  return spawnNode(fileURLToPath(new URL('../../dist/main.js', import.meta.url)), env, args);
}

/**
 * The built worker (`apps/worker/dist/main.js`) as its own process, with its output captured
 * (unlike `spawnWorkerProcess`), so a test can tell when it has begun to stop.
 */
export function spawnLoggingWorkerProcess(env: Record<string, string>, args: string[] = []): SpawnedProcess {
  const main = createRequire(import.meta.url)
    .resolve('@switchboard/worker')
    .replace(/index\.js$/, 'main.js');
  return spawnNode(main, env, args);
}

/** A Node script as its own process (LOG_LEVEL warn unless `env` says otherwise), its output captured line by line. */
export function spawnNode(main: string, env: Record<string, string>, args: string[] = []): SpawnedProcess {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const waiters = new Set<{ fragment: string; resolve: () => void }>();
  // Lines may straddle chunks: keep each stream's unfinished last line until its end arrives.
  const collector = () => {
    let partial = '';
    return (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) {
        output.push(line);
        for (const waiter of waiters) if (line.includes(waiter.fragment)) waiter.resolve();
      }
    };
  };
  child.stdout?.on('data', collector());
  child.stderr?.on('data', collector());
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    output,
    exited,
    exitsWithin(boundMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running ${boundMs} ms later:\n${output.join('\n')}`)), boundMs);
      });
      return Promise.race([exited, late]).finally(() => clearTimeout(timer));
    },
    logLines() {
      return output.flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
    },
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
