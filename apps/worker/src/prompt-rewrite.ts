// optimize_prompt (docs/prompt-format.md): the step before the first submit of a
// video-a-h3 task that asked for it. A language model rewrites the prompt into our structured
// format; the decision (the rewrite, or the prompt as written and why) is stored with the task once
// and every attempt sends it, on any channel and after a crash. The step has its own deadline and
// never fails the task or costs the customer: every failure sends the prompt as written. The task
// is `processing` meanwhile.
import type { MediaRef, StoredTaskParams, VideoTaskSpec } from '@mediagen/catalog';
import { markProcessing, recordPromptDecision, type TaskWithAttempt } from '@mediagen/db';
import type { OptimizeInput, OptimizerMedia } from '@mediagen/prompt-optimizer';
import type { WorkerContext } from './context';
import { referenceLoader } from './reference-bytes';

/** Longest video-a-h3 output, for lip-sync tasks whose length is the audio's and was not priced. */
const MAX_SECONDS = 15;

/** Whether this step runs now: asked for, a prompt to rewrite, not decided yet, nothing submitted yet. */
export function needsPromptRewrite(task: TaskWithAttempt, spec: StoredTaskParams): spec is VideoTaskSpec & { outputSeconds?: number | null } {
  return spec.type === 'video' && spec.optimizePrompt === true && !!spec.prompt?.trim() && task.promptOptimized === null && task.attempt === null;
}

const EXT_MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', mp3: 'audio/mpeg', wav: 'audio/wav', m4a: 'audio/mp4' };
const mimeOf = (r: MediaRef): string | undefined => r.mime ?? EXT_MIME[/\.([a-z0-9]+)(?:\?|$)/i.exec(r.url)?.[1]?.toLowerCase() ?? ''];

export function optimizeInputOf(spec: VideoTaskSpec & { outputSeconds?: number | null }): OptimizeInput {
  // <Picture N> counts the images of `media` only (okay mode); frames are not referred to.
  const media = (kind: 'image' | 'audio'): OptimizerMedia[] =>
    spec.media.filter((m) => m.kind === kind).map((m) => ({ kind, url: m.url, mimeType: mimeOf(m) }));
  return {
    prompt: spec.prompt ?? '',
    mode: spec.refMode ?? 'omni',
    durationSeconds: spec.outputSeconds ?? spec.duration ?? MAX_SECONDS,
    ratio: spec.ratio,
    pictures: media('image'),
    audios: media('audio'),
  };
}

/** Runs the rewrite and stores the decision (the task keeps the first one written); answers the prompt every attempt of the task sends. */
export async function rewritePrompt(ctx: WorkerContext, task: TaskWithAttempt, spec: VideoTaskSpec & { outputSeconds?: number | null }): Promise<string> {
  if (await markProcessing(ctx.db, task.id)) ctx.log.info({ taskId: task.id, accountId: task.accountId }, 'task processing');
  const optimizer = ctx.optimizer;
  const timeoutMs = optimizer?.config?.timeoutMs ?? 20_000;
  const input = optimizeInputOf(spec);
  const outcome = optimizer
    ? await optimizer.optimize(input, AbortSignal.timeout(timeoutMs))
    : { optimized: false as const, prompt: input.prompt, reason: 'not_configured' as const, detail: 'no prompt optimizer', costMicroUsd: 0, ms: 0 };
  const decision = await recordPromptDecision(ctx.db, task.id, {
    effectivePrompt: outcome.prompt,
    promptOptimized: outcome.optimized,
    promptFallbackReason: outcome.optimized ? null : `${outcome.reason}: ${outcome.detail}`.slice(0, 500),
  });
  const label = outcome.optimized ? 'rewritten' : outcome.reason;
  // Counted by the run whose decision was kept: a racing run's call is logged, not counted twice.
  if (decision?.won) {
    ctx.metrics.optimizer.outcomes.inc({ outcome: label });
    ctx.metrics.optimizer.seconds.observe({ optimized: String(outcome.optimized) }, outcome.ms / 1000);
  }
  if (outcome.costMicroUsd > 0 && optimizer?.config) {
    // Every call we paid for, kept or not: the model's upstream cost and margin (no charge to the customer).
    const channel = `optimizer:${optimizer.config.model}`;
    ctx.metrics.upstream.costMicros.inc({ model: task.model, channel }, outcome.costMicroUsd);
    ctx.metrics.upstream.marginMicros.inc({ model: task.model }, -outcome.costMicroUsd);
  }
  const fields = { taskId: task.id, accountId: task.accountId, ms: outcome.ms, costMicroUsd: outcome.costMicroUsd, kept: decision?.won ?? false };
  if (outcome.optimized) ctx.log.info(fields, 'prompt rewritten by the optimizer');
  else if (outcome.reason === 'already_structured') ctx.log.info(fields, 'prompt already structured; sent as written');
  else ctx.log.warn({ ...fields, reason: outcome.reason, detail: outcome.detail }, 'prompt optimizer failed; the prompt goes as written');
  return decision?.effectivePrompt ?? outcome.prompt;
}

/** Reference bytes for an optimizer that takes them inline: the media URL policy, cut at the step's deadline. */
export function optimizerBytes(ctx: Pick<WorkerContext, 'config' | 'storage' | 'download'>) {
  const load = referenceLoader(ctx);
  return (m: OptimizerMedia, signal: AbortSignal): Promise<Buffer> =>
    new Promise<Buffer>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      load({ kind: m.kind, path: m.kind, source: 'url', url: m.url, role: 'reference' })
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
}
