// The submit flow: validate -> idempotency claim -> measure references ->
// price -> one transaction (task + charge + in-progress count) -> store inline files -> enqueue
// -> (answers-at-once models) wait briefly for the result.
import { AppError, invalid } from '@mediagen/errors';
import {
  computeCost,
  checkMeasuredLimits,
  Cost,
  getModel,
  parseImageSubmit,
  parseVideoSubmit,
  IDEMPOTENCY_KEY_MAX,
  idempotencyKeyLength,
  MediaRef,
  TaskSpec,
  type SoldCatalog,
} from '@mediagen/catalog';
import { inspectReferences, Inspection } from '@mediagen/media';
import type { Config } from '@mediagen/config';
import { claimIdempotencyKey, ClaimLost, createTaskWithCharge, findSubmittedTask, releaseIdempotencyKey, SubmitRefused } from '@mediagen/db';
import { enqueueTask, SettledPollEntry } from '@mediagen/queue';
import { settleFailed } from '@mediagen/settle';
import { randomUUID } from 'node:crypto';
import type { GatewayDeps } from '../deps';
import { requestFingerprint } from './fingerprint';
import { submitBody } from './task-view';
import { refusalError } from './refusals';
import { planInlineFiles, storeInlineFiles } from './inline-files';
import { precheckBeforeFetch, withInspectionSlot } from './fetch-precheck';
import type { InlineStager } from '../middleware/inline-staging';

export type Endpoint = 'video' | 'image';

export interface SubmitInput {
  accountId: string;
  endpoint: Endpoint;
  body: unknown;
  /** Raw `Idempotency-Key` header, when sent. */
  idempotencyHeader: string | undefined;
  /** X-Request-Id of the submit: logged with the task and carried to the worker's log lines. */
  requestId?: string;
  /** Aborted when the client goes away: reference fetches stop and the inspection slot is freed. */
  signal?: AbortSignal;
  /** Inline files the body wrote to storage as it arrived (large bodies); those the task takes are kept. */
  staged?: InlineStager;
}

/**
 * Node hands header values over as latin1 (one character per byte); a client sends UTF-8. Decode
 * it, so the header and client_request_id are the same id in the same encoding, measured alike
 * (in characters: idempotencyKeyLength). Bytes that are not UTF-8 are kept as they came.
 */
export function decodeHeaderId(raw: string): string {
  const bytes = Buffer.from(raw, 'latin1');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : raw;
}

function idempotencyKeyOf(header: string | undefined, bodyId: string | null): string | null {
  if (header === undefined) return bodyId;
  const id = decodeHeaderId(header);
  const n = idempotencyKeyLength(id);
  if (n < 1 || n > IDEMPOTENCY_KEY_MAX) throw invalid('Idempotency-Key', `must be 1-${IDEMPOTENCY_KEY_MAX} characters`);
  return id; // the Idempotency-Key header wins over client_request_id
}

const claimLostError = () =>
  new AppError('idempotency_in_progress', 'A request with this idempotency id is still being processed; retry shortly with the same id', undefined, undefined, { 'Retry-After': '1' });

const noMedia = (): Inspection => ({ measured: { videoSeconds: [], audioSeconds: [] }, inline: [] });

export const referencesOf = (spec: TaskSpec): MediaRef[] =>
  spec.type === 'image' ? spec.images : [...spec.media, ...(spec.firstFrame ? [spec.firstFrame] : []), ...(spec.lastFrame ? [spec.lastFrame] : [])];

/** The generate body validated (structure and model rules), as both generate and quote read it. */
/** `sold`: what this deployment sells (SOLD_MODELS); a model not sold is refused with model_not_offered. */
export function parseSubmit(config: Config, endpoint: Endpoint, body: unknown, sold?: SoldCatalog, staged?: InlineStager) {
  const opts = { allowPrivateMediaUrls: config.ALLOW_PRIVATE_MEDIA_URLS, allowLocalWebhooks: config.ALLOW_LOCAL_WEBHOOKS, sold, staged: staged?.files };
  return endpoint === 'video' ? parseVideoSubmit(body, opts) : parseImageSubmit(body, opts);
}

/**
 * Fetches and measures the references (under the account's inspection slot), checks the measured
 * limits and prices the task: the one path by which generate charges and quote answers, so a
 * quote and the charge of the same body cannot differ.
 */
export async function inspectAndPrice(deps: GatewayDeps, accountId: string, spec: TaskSpec, signal?: AbortSignal, staged?: InlineStager): Promise<{ inspection: Inspection; cost: Cost }> {
  const refs = referencesOf(spec);
  // Most submits have no reference media: nothing to fetch or measure, and no deadline to arm.
  let inspection = noMedia();
  if (refs.length > 0) {
    await precheckBeforeFetch(deps, accountId, spec, refs);
    const policy = staged ? { ...deps.mediaPolicy, staged: staged.files } : deps.mediaPolicy;
    inspection = await withInspectionSlot(deps, accountId, () => inspectReferences(refs, policy, signal));
  }
  checkMeasuredLimits(spec, inspection.measured);
  return { inspection, cost: computeCost(spec, inspection.measured) };
}

/** 422 before anything is charged: the task costs more than the submit's max_cost_cents allows. */
export function checkCostCeiling(cost: Cost, maxCostCents: number | null): void {
  if (maxCostCents === null || cost.costCents <= maxCostCents) return;
  throw new AppError('cost_above_limit', `This task costs ${cost.costCents} cents, more than max_cost_cents (${maxCostCents}); nothing was charged`, undefined, {
    costCents: cost.costCents,
    maxCostCents,
  });
}

export async function submitTask(deps: GatewayDeps, input: SubmitInput): Promise<Record<string, unknown>> {
  const { config, db } = deps;
  const { spec, clientRequestId, callbackUrl, maxCostCents } = parseSubmit(config, input.endpoint, input.body, deps.sold, input.staged);
  const key = idempotencyKeyOf(input.idempotencyHeader, clientRequestId);

  // Without Redis the task could not be queued; refuse before anything is claimed or charged.
  if (deps.redis.status !== 'ready') throw new AppError('service_unavailable', 'Queue unavailable; retry shortly');

  let claimToken: string | undefined;
  if (key !== null) {
    const fingerprint = requestFingerprint(input.endpoint, input.body, input.staged?.files);
    const claim = await claimIdempotencyKey(db, input.accountId, key, fingerprint, config.IDEMPOTENCY_STALE_MS);
    if (!claim.claimed) return replay(deps, input.accountId, key, fingerprint, claim);
    claimToken = claim.token;
  }

  const taskId = randomUUID();
  let created = false;
  let costCents = 0;
  try {
    const { inspection, cost } = await inspectAndPrice(deps, input.accountId, spec, input.signal, input.staged);
    checkCostCeiling(cost, maxCostCents);
    costCents = cost.costCents;
    const deadlineAt = new Date(Date.now() + config.TASK_TIMEOUT_MS);
    const inline = planInlineFiles(deps, taskId, inspection.inline, deadlineAt);
    await createTaskWithCharge(db, {
      taskId,
      accountId: input.accountId,
      type: spec.type,
      model: spec.model,
      params: { ...inline.rewrite(spec), outputSeconds: cost.outputSeconds } as never,
      costCents: cost.costCents,
      costMicros: cost.costMicros,
      billedSeconds: cost.billedSeconds,
      deadlineAt,
      idempotencyKey: key ?? undefined,
      callbackUrl,
      claimToken,
    }).catch((e) => {
      if (e instanceof SubmitRefused) throw refusalError(e, cost.costCents, config.TOP_UP_URL);
      // Our claim went stale and another request with this id took it over: it owns the id now.
      if (e instanceof ClaimLost) throw claimLostError();
      throw e;
    });
    created = true;
    deps.metrics.tasks.created.inc({ model: spec.model });
    deps.log.info({ reqId: input.requestId, accountId: input.accountId, taskId, model: spec.model, costCents: cost.costCents }, 'task created');
    await storeInlineFiles(deps, taskId, inline).catch(async (err) => {
      // The task exists and is charged, but its inputs are not where its params say: fail it now,
      // refunded, rather than let a provider fail on missing files later.
      await settleFailed(deps.settleContext, taskId, 'generation_failed', { reason: 'inputs_not_stored', cause: (err as Error).message });
      throw err;
    });
    for (const f of inline.files) if (f.file.stored) input.staged?.keep(f.key);
  } finally {
    if (!created && key !== null && claimToken !== undefined)
      await releaseIdempotencyKey(db, input.accountId, key, claimToken).catch(() => undefined);
  }

  const model = getModel(spec.model);
  const instant = model?.type === 'image' && model.answersAtOnce && config.INSTANT_WAIT_MS > 0;
  const wait = instant ? deps.events.waitForSettle(taskId, config.INSTANT_WAIT_MS) : null;
  try {
    await enqueueTask(deps.queue, taskId, input.requestId);
  } catch (err) {
    // Committed and charged: the worker's reconciler enqueues pending tasks that have no job.
    deps.log.warn({ err, taskId }, 'enqueue failed; left for the reconciler');
    wait?.cancel();
    return submitBody(pendingRow(taskId, spec.type), false, costCents);
  }
  if (!wait) return submitBody(pendingRow(taskId, spec.type), false, costCents);
  // The settlement's event carries the settled task's poll entry: the answer needs no read then.
  const entry = await wait.done;
  const row = entry && entry.accountId === input.accountId ? settledRow(taskId, entry) : await findSubmittedTask(db, taskId, input.accountId);
  return submitBody(row ?? pendingRow(taskId, spec.type), false, costCents);
}

/** A settled task's row as submitBody reads it, from its poll entry (decoded, so its fields are typed). */
function settledRow(id: string, { type, body }: SettledPollEntry) {
  const common = { id, type, progress: 100, resultUrls: [] as string[], errorCode: null as string | null, errorMessage: null as string | null, retryable: null as boolean | null, expiresAt: null as Date | null };
  if (body.status === 'completed') return { ...common, status: body.status, resultUrls: body.resultUrls, expiresAt: body.expiresAt === undefined ? null : new Date(body.expiresAt) };
  return { ...common, status: body.status, errorCode: body.errorCode, errorMessage: body.errorMessage, retryable: body.retryable };
}

const pendingRow = (id: string, type: 'video' | 'image') => ({
  id,
  type,
  status: 'pending' as const,
  progress: 0,
  resultUrls: [],
  errorCode: null,
  errorMessage: null,
  retryable: null,
  expiresAt: null,
});

async function replay(
  deps: GatewayDeps,
  accountId: string,
  key: string,
  fingerprint: string,
  claim: { fingerprint: string; taskId: string | null },
): Promise<Record<string, unknown>> {
  if (claim.taskId === null) throw claimLostError();
  if (claim.fingerprint !== fingerprint)
    throw new AppError('idempotency_key_reused', `Idempotency id "${key}" was already used for a different request; use a new id`);
  const task = await findSubmittedTask(deps.db, claim.taskId, accountId);
  if (!task) throw new AppError('internal_error', 'Idempotency record points at a missing task');
  return submitBody(task, true, task.costCents);
}
