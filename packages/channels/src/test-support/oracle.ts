import { AppError } from '@switchboard/protocol';

/**
 * Support for the oracle tests (`*.oracle.test.ts`): the same generated request goes to our
 * verifier and to the platform's own implementation, and both must decide alike.
 */

/** Runs per property: enough to reach every branch of the generators, few enough for the whole set to take seconds. */
export const ORACLE_RUNS = 300;

/**
 * Our verifier's decision: true when it accepts, false when it refuses with a 401. Anything else
 * (a 5xx, a TypeError) is a bug of its own and fails the test.
 */
export async function ourDecision(run: () => unknown): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (err) {
    if (err instanceof AppError && err.status === 401) return false;
    throw err;
  }
}

/** The official implementation's decision: true when it returns true or nothing, false when it returns false or throws. */
export async function theirDecision(run: () => unknown): Promise<boolean> {
  try {
    return (await run()) !== false;
  } catch {
    return false;
  }
}

/** Counts the decisions a property saw, so a test can require that it saw both. */
export class Tally {
  accepted = 0;
  refused = 0;
  add(accepted: boolean): void {
    if (accepted) this.accepted++;
    else this.refused++;
  }
  toString(): string {
    return `${this.accepted} accepted, ${this.refused} refused`;
  }
}
