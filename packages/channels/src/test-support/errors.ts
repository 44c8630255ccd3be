import { AppError } from '@switchboard/protocol';
import { DeliveryError } from '../delivery-error.js';

/** The AppError `run` throws; fails the test when it throws nothing or something else. */
export function appErrorFrom(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

/** The DeliveryError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function deliveryErrorFrom(promise: Promise<unknown>): Promise<DeliveryError> {
  const outcome = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (outcome instanceof DeliveryError) return outcome;
  throw new Error(`expected a DeliveryError, got ${String(outcome)}`);
}
