/**
 * Retries an assertion for a while: the workers' own scheduled passes (every second) may have
 * claimed a delivery just before a test's and still be sending it.
 */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
