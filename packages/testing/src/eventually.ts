/** Resolves when `check` passes (polling), for effects that happen after a response. */
export async function eventually<T>(check: () => T | Promise<T>, attempts = 250, delayMs = 20): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await check();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
  throw lastError;
}
