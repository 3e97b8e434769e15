// The job catalog: queue names, job names and payload schemas. Producers (gateway) and consumers
// (worker) import job types only from here; the worker validates payloads again on receipt.
import { z } from 'zod';

export const QUEUES = {
  /** One job per task, jobId = taskId; the job moves itself through delayed steps while a render runs. */
  tasks: 'tasks',
  /** Repeatable housekeeping: timeout sweep and reconciliation of pending tasks without a job. */
  maintenance: 'maintenance',
  /** Outbound webhook deliveries: one job per delivery, jobId = deliveryId; state in Postgres. */
  webhooks: 'webhooks',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const JOBS = {
  runTask: 'run-task',
  sweepTimeouts: 'sweep-timeouts',
  reconcile: 'reconcile',
  deliverWebhook: 'deliver-webhook',
  /** Maintenance: create the events of settled tasks whose outbox mark is missing, revive lost deliveries. */
  reconcileWebhooks: 'reconcile-webhooks',
  /** Maintenance: delete audit events older than AUDIT_RETENTION_DAYS. */
  pruneAudit: 'prune-audit',
  /** Maintenance: delete expired console sessions. */
  expireSessions: 'expire-sessions',
  /** Maintenance: delete expired result files and old operational rows (docs/data-retention.md). */
  retention: 'retention',
} as const;

/**
 * Step of the task state machine the job will run next. The durable state lives in Postgres
 * (Task, TaskAttempt); the step is only a hint so a resumed job does not have to guess.
 */
export const taskStepSchema = z.enum(['submit', 'poll']);
export type TaskStep = z.infer<typeof taskStepSchema>;

export const pollHintSchema = z.object({
  attemptId: z.string().min(1).max(100),
  channelId: z.string().min(1).max(200),
  upstreamId: z.string().min(1).max(2000),
  accountId: z.string().min(1).max(100),
  /** The task's kind: what a result file claimed by an upstream callback is checked against (early-status.ts). */
  type: z.enum(['video', 'image']).optional(),
});
export type PollHint = z.infer<typeof pollHintSchema>;

/** At most this many files per claim: a task has one video or a few images (catalog expectedOutputs). */
export const MAX_CLAIMED_FILES = 4;

export const callbackClaimSchema = z.object({
  upstreamId: z.string().min(1).max(2000),
  urls: z.array(z.url({ protocol: /^https?$/ }).max(4096)).min(1).max(MAX_CLAIMED_FILES),
});
export type CallbackClaim = z.infer<typeof callbackClaimSchema>;

export const runTaskPayloadSchema = z.object({
  taskId: z.string().min(1),
  step: taskStepSchema.default('submit'),
  /** Consecutive transient errors on the current step, for backoff. */
  transientErrors: z.number().int().min(0).default(0),
  /** X-Request-Id of the submit, so the worker's log lines of the task carry it (absent after a re-enqueue). */
  requestId: z.string().max(200).optional(),
  /**
   * A render the upstream accepted whose id could not be written to Postgres (down for longer than
   * the write's retries): kept here, the job's second durable place, so the next run writes it
   * instead of submitting again. Dropped once written.
   */
  render: z.object({ attemptId: z.string().min(1), upstreamId: z.string().min(1).max(2000) }).optional(),
  /**
   * The running attempt the next poll step reads (its account, for the channel breaker's count),
   * so the step can start the upstream status read beside loading the task; the loaded rows decide
   * whether that answer is used. Only a hint: one that does not parse is ignored, never a reason
   * to drop the job (an old job without it polls as it always did).
   */
  poll: pollHintSchema.optional().catch(undefined),
  /**
   * The result files an upstream callback said the render finished with, written by the gateway
   * when the callback promoted the job (wakeTask), dropped by the step's end. Never the outcome:
   * the poll step starts their downloads beside its status read, and keeps one only when that read
   * names the same file; a hint like `poll`, ignored when it does not parse.
   */
  claim: callbackClaimSchema.optional().catch(undefined),
});
export type RunTaskPayload = z.infer<typeof runTaskPayloadSchema>;

/** The jobs of the maintenance queue. A worker keeps one handler per name (a missing one does not compile). */
export const MAINTENANCE_JOBS = [JOBS.sweepTimeouts, JOBS.reconcile, JOBS.reconcileWebhooks, JOBS.pruneAudit, JOBS.expireSessions, JOBS.retention] as const;
export type MaintenanceJobName = (typeof MAINTENANCE_JOBS)[number];

export const isMaintenanceJobName = (name: string): name is MaintenanceJobName => (MAINTENANCE_JOBS as readonly string[]).includes(name);

/**
 * Payload of every maintenance job: the schedulers send `{}`; each run reads what it needs from
 * Postgres and the config. Extra keys are tolerated so a newer scheduler does not break older workers.
 */
export const maintenancePayloadSchema = z.looseObject({});
export type MaintenancePayload = z.infer<typeof maintenancePayloadSchema>;

/**
 * A webhook delivery job carries only the delivery id: the body, the target, the attempt count and
 * the next attempt time live in the WebhookDelivery row, so a lost or repeated job changes nothing.
 */
export const deliverWebhookPayloadSchema = z.object({ deliveryId: z.string().min(1).max(100) });
export type DeliverWebhookPayload = z.infer<typeof deliverWebhookPayloadSchema>;
