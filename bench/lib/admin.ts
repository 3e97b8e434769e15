// Accounts and API keys for the benchmark, made through the admin API like an operator would.

export interface BenchAccount {
  id: string;
  key: string;
}

async function adminCall<T>(base: string, token: string, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function createAccounts(
  base: string,
  token: string,
  n: number,
  name: string,
  opts: { balanceCents: number; maxConcurrentTasks?: number; rateLimitPerMinute?: number },
): Promise<BenchAccount[]> {
  const out: BenchAccount[] = [];
  // A few at a time: this is set-up, not load.
  for (let i = 0; i < n; i += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, n - i) }, async (_, j) => {
        const acc = await adminCall<{ id: string }>(base, token, 'POST', '/admin/accounts', {
          name: `${name}-${i + j}`,
          balanceCents: opts.balanceCents,
          maxConcurrentTasks: opts.maxConcurrentTasks,
          rateLimitPerMinute: opts.rateLimitPerMinute,
        });
        const key = await adminCall<{ key: string }>(base, token, 'POST', `/admin/accounts/${acc.id}/api-keys`);
        return { id: acc.id, key: key.key };
      }),
    );
    out.push(...batch);
  }
  return out;
}

export const getAccount = (base: string, token: string, id: string) =>
  adminCall<{ id: string; balanceCents: number; tasksInProgress: number }>(base, token, 'GET', `/admin/accounts/${id}`);
