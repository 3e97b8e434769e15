// optimize_prompt's rewrite step (docs/prompt-format.md): how each task's prompt was decided, how
// long the decision took (time added before the first submit), and what the language model cost.
// The cost also goes to the model's upstream cost and margin (upstream-metrics.ts), as a channel
// named `optimizer:<model>`.
import { Counter, Histogram, Registry } from 'prom-client';

export function optimizerMetrics(registry: Registry) {
  return {
    outcomes: new Counter({
      name: 'mediagen_prompt_optimizer_total',
      help: 'optimize_prompt decisions by outcome: rewritten, or the fallback reason (already_structured, not_configured, timeout, error, refused, unparsable, invalid); every fallback sends the prompt as written',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    seconds: new Histogram({
      name: 'mediagen_prompt_optimizer_seconds',
      help: 'Time the rewrite step added before the first submit, by whether it rewrote the prompt',
      labelNames: ['optimized'] as const,
      buckets: [0.05, 0.25, 0.5, 1, 2, 5, 10, 20, 30],
      registers: [registry],
    }),
  };
}

export type OptimizerMetrics = ReturnType<typeof optimizerMetrics>;
