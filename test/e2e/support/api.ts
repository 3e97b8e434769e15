// The public and admin HTTP API as a test client uses it.
import { createHash } from 'node:crypto';
import type { Stack } from './stack';
import { recordedResponses } from './openapi-check';

export interface Account {
  accountId: string;
  apiKey: string;
}

export type Kind = 'video' | 'image';

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** Every response is recorded for the OpenAPI check the suite runs after the file's tests. */
function record(url: string, method: string | undefined, res: Response, body: unknown): void {
  const u = new URL(url);
  recordedResponses.push({ method: method ?? 'GET', path: u.pathname + u.search, status: res.status, headers: res.headers, body });
}

async function call<T>(url: string, init: RequestInit): Promise<HttpResult<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  const body = (text ? JSON.parse(text) : null) as T;
  record(url, init.method, res, body);
  return { status: res.status, body, headers: res.headers };
}

export function apiClient(stack: Stack) {
  const admin = (method: string, p: string, body?: unknown) =>
    call<Record<string, unknown>>(`${stack.gatewayUrl}/admin${p}`, {
      method,
      headers: { Authorization: `Bearer ${stack.adminToken}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  return {
    admin,

    async newAccount(balanceCents = 10_000, maxConcurrentTasks = 20): Promise<Account> {
      const acc = await admin('POST', '/accounts', { name: `e2e-${Date.now()}`, balanceCents, maxConcurrentTasks });
      if (acc.status !== 201) throw new Error(`create account: ${acc.status} ${JSON.stringify(acc.body)}`);
      const key = await admin('POST', `/accounts/${acc.body.id}/api-keys`);
      if (key.status !== 201) throw new Error(`create key: ${key.status} ${JSON.stringify(key.body)}`);
      return { accountId: String(acc.body.id), apiKey: String(key.body.key) };
    },

    submit(account: Account, kind: Kind, body: Record<string, unknown>, headers: Record<string, string> = {}) {
      return call<Record<string, unknown>>(`${stack.gatewayUrl}/api/${kind}/generate`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    },

    /** POST /api/{kind}/tasks/{taskId}/cancel (extension). */
    cancel(account: Account, kind: Kind, taskId: string) {
      return call<Record<string, unknown>>(`${stack.gatewayUrl}/api/${kind}/tasks/${taskId}/cancel`, { method: 'POST', headers: { Authorization: `Bearer ${account.apiKey}` } });
    },

    /** GET /api/tasks (extension); `query` as a query string without the `?`. */
    listTasks(account: Account, query = '') {
      return call<{ data: Record<string, unknown>[]; nextCursor: string | null }>(`${stack.gatewayUrl}/api/tasks${query ? `?${query}` : ''}`, {
        headers: { Authorization: `Bearer ${account.apiKey}` },
      });
    },

    poll(account: Account, kind: Kind, taskId: string) {
      return call<Record<string, unknown>>(`${stack.gatewayUrl}/api/${kind}/tasks/${taskId}`, {
        headers: { Authorization: `Bearer ${account.apiKey}` },
      });
    },

    /** Polls until the task is completed or failed; returns every body seen, the last one terminal. */
    async untilSettled(account: Account, kind: Kind, taskId: string, timeoutMs = 20_000): Promise<Record<string, unknown>[]> {
      const seen: Record<string, unknown>[] = [];
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const r = await this.poll(account, kind, taskId);
        if (r.status !== 200) throw new Error(`poll ${taskId}: ${r.status} ${JSON.stringify(r.body)}`);
        seen.push(r.body);
        if (r.body.status === 'completed' || r.body.status === 'failed') return seen;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error(`task ${taskId} not settled after ${timeoutMs} ms; last: ${JSON.stringify(seen.at(-1))}\n${stack.logs()}`);
    },

    /**
     * What the simulator saw of one task: calls, submits, renders (with their channels). The
     * simulator's own http-jobs protocol groups calls by the task id it is sent; the vendors'
     * protocols carry no task reference, so the simulator groups their calls by prompt.
     */
    async simTask(taskId: string): Promise<{ calls: number; submits: number; renders: { id: string; channelId: string }[] }> {
      type Summary = { calls: number; submits: number; renders: { id: string; channelId: string }[] };
      const byTask = (await (await fetch(`${stack.simUrl}/stats/refs/${encodeURIComponent(taskId)}`)).json()) as Summary;
      if (byTask.calls > 0) return byTask;
      const task = await stack.db.task.findUnique({ where: { id: taskId }, select: { params: true } });
      const prompt = (task?.params as { prompt?: unknown } | null)?.prompt;
      const ref = `prompt:${createHash('sha256').update(String(prompt ?? '')).digest('hex').slice(0, 32)}`;
      return (await fetch(`${stack.simUrl}/stats/refs/${encodeURIComponent(ref)}`)).json() as never;
    },

    async fetchFile(url: string, headers: Record<string, string> = {}) {
      const res = await fetch(url, { headers });
      const bytes = Buffer.from(await res.arrayBuffer());
      const json = res.headers.get('content-type')?.startsWith('application/json');
      if (url.startsWith(stack.gatewayUrl)) record(url, 'GET', res, json ? JSON.parse(bytes.toString('utf8')) : null);
      return { status: res.status, headers: res.headers, bytes };
    },
  };
}
