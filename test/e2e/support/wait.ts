/** Polls `check` until it returns a truthy value or the time is up. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `eventually` for a check that may be synchronous, with the arguments in the order (check, ms, what). */
export async function waitFor(check: () => unknown | Promise<unknown>, timeoutMs: number, what: string): Promise<void> {
  await eventually(what, async () => Boolean(await check()), timeoutMs);
}
