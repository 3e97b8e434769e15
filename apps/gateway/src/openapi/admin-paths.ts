// The admin API (docs/api.md) in the OpenAPI document, behind the ADMIN_TOKEN bearer.
// Request bodies are the schemas admin.routes.ts validates with.
import { z } from 'zod';
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { createAccountSchema, creditSchema, ledgerQuerySchema, updateAccountSchema } from '../routes/admin.routes';
import { effectivePromptSchema, nextCursorSchema, TASK_STATUSES } from '@mediagen/catalog';
import { baseHeaders, errorResponse, internalError, ok, unauthorized, unavailable } from './responses';

const ts = z.string().meta({ description: 'ISO 8601 time.', example: '2026-01-01T12:00:00.000Z' });
const accountView = z
  .object({
    id: z.string(),
    name: z.string(),
    balanceCents: z.number().int(),
    tasksInProgress: z.number().int(),
    maxConcurrentTasks: z.number().int(),
    rateLimitPerMinute: z.number().int(),
    createdAt: ts,
  })
  .meta({ id: 'AdminAccount' });
const ledgerEntry = z
  .object({
    id: z.string(),
    kind: z.string().meta({ description: 'charge, refund, top-up or adjustment.', example: 'charge' }),
    amountCents: z.number().int(),
    taskId: z.string().nullable(),
    reason: z.string().nullable(),
    actor: z.string().nullable().meta({ description: 'Who made the change: operator:<name> (console), admin-token (admin API); null for charges and refunds.', example: 'operator:alice' }),
    createdAt: ts,
  })
  .meta({ id: 'LedgerEntry' });
const adminTask = z
  .looseObject({
    id: z.string(),
    accountId: z.string(),
    type: z.enum(['video', 'image']),
    model: z.string(),
    status: z.enum(TASK_STATUSES),
    costCents: z.number().int(),
    costMicros: z.string().meta({ description: 'Exact cost in micro-USD, as a decimal string.' }),
    effectivePrompt: effectivePromptSchema,
    promptOptimized: z.boolean().nullable().meta({ description: 'optimize_prompt: true when the optimizer rewrote the prompt, false when it went as written, null when not asked or not decided yet.' }),
    promptFallbackReason: z.string().nullable().meta({ description: 'Why the prompt went as written: `<reason>: <detail>`, reason one of already_structured, not_configured, timeout, error, refused, unparsable, invalid.', example: 'timeout: no answer within 20000 ms' }),
    attempts: z.array(z.looseObject({ attemptNo: z.number().int(), channelId: z.string() })).meta({ description: 'Each channel attempt: channel, upstream id, outcome.' }),
  })
  .meta({ id: 'AdminTask', description: 'The task row with its attempts; further columns may appear.' });

const idParam = (name: string, example: string) => z.object({ [name]: z.string().meta({ example }) });

export function registerAdminPaths(reg: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const common = (): Record<number, ResponseConfig> => ({ 401: unauthorized('admin'), 500: internalError(), 503: unavailable() });
  const withBody = (): Record<number, ResponseConfig> => ({
    400: errorResponse(400, 'Invalid body; `details` names the offending fields.', {}, 'validation_error'),
    413: errorResponse(413, 'Body over 100 kB.'),
    415: errorResponse(415, 'Content-Encoding not accepted.'),
  });
  const notFound = (what: string) => ({ 404: errorResponse(404, `${what} not found.`) });
  const body = (schema: z.ZodType, example: unknown) => ({ body: { required: true, content: { 'application/json': { schema, example } } } });
  const account = { id: 'acc_01J9Z3N6K4', name: 'Acme', balanceCents: 10000, tasksInProgress: 0, maxConcurrentTasks: 20, rateLimitPerMinute: 120, createdAt: '2026-01-01T12:00:00.000Z' };
  const op = (c: Parameters<OpenAPIRegistry['registerPath']>[0]) => reg.registerPath({ tags: ['Admin'], security, ...c });

  op({
    method: 'post', path: '/admin/accounts', operationId: 'adminCreateAccount', summary: 'Create an account',
    request: body(createAccountSchema.meta({ id: 'AdminCreateAccountBody' }), { name: 'Acme', balanceCents: 10000, maxConcurrentTasks: 20 }),
    responses: { 201: ok('Created.', z.object({ id: z.string(), name: z.string(), balanceCents: z.number().int() }), { id: 'acc_01J9Z3N6K4', name: 'Acme', balanceCents: 10000 }), ...withBody(), ...common() },
  });
  op({
    method: 'get', path: '/admin/accounts/{id}', operationId: 'adminGetAccount', summary: 'An account with its balance and tasks in progress',
    request: { params: idParam('id', 'acc_01J9Z3N6K4') },
    responses: { 200: ok('The account.', accountView, account), ...notFound('Account'), ...common() },
  });
  op({
    method: 'patch', path: '/admin/accounts/{id}', operationId: 'adminUpdateAccount', summary: 'Change an account\'s name or limits',
    request: { params: idParam('id', 'acc_01J9Z3N6K4'), ...body(updateAccountSchema.meta({ id: 'AdminUpdateAccountBody' }), { maxConcurrentTasks: 50 }) },
    responses: { 200: ok('The updated account.', accountView, { ...account, maxConcurrentTasks: 50 }), ...withBody(), ...notFound('Account'), ...common() },
  });
  op({
    method: 'post', path: '/admin/accounts/{id}/api-keys', operationId: 'adminCreateApiKey', summary: 'Create an API key (shown once)',
    request: { params: idParam('id', 'acc_01J9Z3N6K4') },
    responses: {
      201: ok('The key; only its hash is stored.', z.object({ id: z.string(), key: z.string(), prefix: z.string() }), { id: 'key_01J9Z3N6K4', key: 'mg_live_...', prefix: 'mg_live_ab12' }),
      ...notFound('Account'),
      ...common(),
    },
  });
  op({
    method: 'get', path: '/admin/accounts/{id}/api-keys', operationId: 'adminListApiKeys', summary: 'An account\'s API keys (prefixes only)',
    request: { params: idParam('id', 'acc_01J9Z3N6K4') },
    responses: {
      200: ok('Keys, newest first.', z.object({ keys: z.array(z.object({ id: z.string(), prefix: z.string(), createdAt: ts, revokedAt: ts.nullable() })) }), { keys: [{ id: 'key_01J9Z3N6K4', prefix: 'mg_live_ab12', createdAt: '2026-01-01T12:00:00.000Z', revokedAt: null }] }),
      ...common(),
    },
  });
  op({
    method: 'delete', path: '/admin/api-keys/{id}', operationId: 'adminRevokeApiKey', summary: 'Revoke an API key at once, in every gateway',
    request: { params: idParam('id', 'key_01J9Z3N6K4') },
    responses: { 204: { description: 'Revoked (also when it already was).', headers: baseHeaders() }, ...notFound('API key'), ...common() },
  });
  op({
    method: 'post', path: '/admin/accounts/{id}/credits', operationId: 'adminCreditAccount', summary: 'Top up or adjust a balance (one ledger entry)',
    request: { params: idParam('id', 'acc_01J9Z3N6K4'), ...body(creditSchema.meta({ id: 'AdminCreditBody' }), { amountCents: 5000, reason: 'invoice 42' }) },
    responses: {
      200: ok('The new balance.', z.object({ balanceCents: z.number().int() }), { balanceCents: 15000 }),
      ...withBody(),
      422: errorResponse(422, 'The balance would pass its maximum (`balance_limit_exceeded`, with `maxBalanceCents`).', {}, 'balance_limit_exceeded'),
      ...notFound('Account'),
      ...common(),
    },
  });
  op({
    method: 'get', path: '/admin/accounts/{id}/ledger', operationId: 'adminListLedger', summary: 'Ledger entries, newest first (cursor-paginated)',
    request: { params: idParam('id', 'acc_01J9Z3N6K4'), query: ledgerQuerySchema },
    responses: {
      200: ok('Entries; pass nextCursor as cursor for older ones.', z.object({ entries: z.array(ledgerEntry), nextCursor: nextCursorSchema }), { entries: [{ id: 'led_1', kind: 'charge', amountCents: -4, taskId: 'tsk_01J9Z3N6K4', reason: null, actor: null, createdAt: '2026-01-01T12:00:00.000Z' }], nextCursor: null }),
      400: errorResponse(400, 'Bad limit or cursor.', {}, 'invalid_cursor'),
      ...notFound('Account'),
      ...common(),
    },
  });
  op({
    method: 'get', path: '/admin/tasks/{taskId}', operationId: 'adminGetTask', summary: 'A task with its channel attempts',
    request: { params: idParam('taskId', 'tsk_01J9Z3N6K4') },
    responses: {
      200: ok('The task.', adminTask, { id: 'tsk_01J9Z3N6K4', accountId: 'acc_01J9Z3N6K4', type: 'image', model: 'image-b-2.5', status: 'completed', costCents: 3, costMicros: '30000', effectivePrompt: 'a red boat', promptOptimized: null, promptFallbackReason: null, attempts: [{ attemptNo: 1, channelId: 'sim-image' }] }),
      ...notFound('Task'),
      ...common(),
    },
  });
  op({
    method: 'get', path: '/admin/channels', operationId: 'adminListChannels', summary: 'Provider channels with their circuit breaker state',
    responses: {
      200: ok(
        'Channels the workers registered: breaker state, recent outcomes, what each renders of each model it maps (`coverage`), upstream models its upstream no longer knows (`unavailableModels`) and the last channel check (`checks`).',
        z.object({ channels: z.array(z.looseObject({ id: z.string() })) }),
        {
          channels: [{
            id: 'sim-video', state: 'closed',
            coverage: { 'video-a-h3': { renders: '480p/768p · 1-10 s · effort 1x', limits: { resolutions: ['480p', '768p'], seconds: { min: 1, max: 10 }, efforts: ['1x'] } } },
            upstreamModels: { 'video-a-h3': 'MiniMax-H3' },
            unavailableModels: [{ upstreamModel: 'MiniMax-H2', model: 'video-a-h3', message: "submit: HTTP 400 2013 invalid params, unknown model 'MiniMax-H2' (2013)", at: '2026-11-27T08:00:00.000Z' }],
            checks: [{ upstreamModel: 'MiniMax-H3', verdict: 'ok', detail: 'MiniMax-H3 exists', ms: 212, at: '2026-11-27T08:00:00.000Z' }],
          }],
        },
      ),
      ...common(),
      503: unavailable('Redis unavailable; channel health is kept there.'),
    },
  });
  op({
    method: 'get', path: '/admin/queues', operationId: 'adminQueuesUi', summary: 'Bull Board: the job queues (HTML user interface and its assets below this path)',
    responses: { 200: { description: 'The Bull Board page.', headers: baseHeaders(), content: { 'text/html': { schema: z.string(), example: '<!DOCTYPE html>...' } } }, ...common() },
  });
}
