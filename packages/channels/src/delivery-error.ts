/** A reply that could not be delivered; `retryable` says whether another attempt may succeed. */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly options: { credentialsRefused?: boolean; retryAfterMs?: number } = {},
  ) {
    super(message);
  }

  /** How long the platform asked to wait before a retry, in ms (read by the job's back-off). */
  get retryAfterMs(): number | undefined {
    return this.options.retryAfterMs;
  }
}
