import { DeliveryError } from './delivery-error.js';
import type { JsonReply } from './http.js';

/**
 * What a check of a hook's credentials found: `true` the platform accepted them, `false` it
 * refused them or could not be reached (`reason` says which), `null` nothing could be checked
 * with this hook's configuration.
 */
export interface CredentialCheck {
  connected: boolean | null;
  reason?: string;
}

/**
 * Runs one credential check call and judges its answer; a transport failure (refused, time-out)
 * means the channel cannot reach its platform now: `connected: false` with the reason.
 */
export async function checkWith(
  call: () => Promise<JsonReply>,
  judge: (reply: JsonReply) => CredentialCheck,
): Promise<CredentialCheck> {
  try {
    return judge(await call());
  } catch (err) {
    if (err instanceof DeliveryError) return { connected: false, reason: err.message };
    throw err;
  }
}
