// Which channel a task's next attempt runs on: the first channel of the model's order (cheapest
// first, packages/providers channelsFor) that the task has not tried yet and whose breaker admits it.
import type { Admission, BreakerState, ChannelHealth } from './breaker';
import type { ChoiceState } from './choice-reads';

export interface Pick<C> {
  channel: C;
  /** fallback: every untried channel was open, so the one that failed longest ago is used anyway. */
  admission: Admission | 'fallback';
  /** Set when this pick moved a breaker (open -> half-open). */
  moved: BreakerState | null;
}

/**
 * Decision: when every channel left for the task is open, the task still runs on the one whose
 * last failure is oldest rather than failing at once. A breaker protects the channel and spares
 * tasks a likely failure, but the task was charged for a render: an outage of every channel of a
 * model should cost tasks their failed attempts, not a refusal without trying.
 * Returns null when the task has tried every channel of its order.
 * `known`: what readChoiceState read beside the step's other reads: the disabled set, and the
 * channels whose breaker was closed then, which admit without the script (the script would only
 * have read the same hash a moment later and written nothing).
 */
export async function pickChannel<C extends { id: string }>(
  order: readonly C[],
  tried: ReadonlySet<string>,
  health: ChannelHealth,
  taskId: string,
  known?: { disabled: ChoiceState['disabled']; admitting: ChoiceState['admitting'] },
): Promise<Pick<C> | null> {
  // A channel an operator disabled takes no new attempt, not even as the fallback.
  const disabled = known?.disabled ?? (await health.disabled?.()) ?? new Set<string>();
  const candidates = order.filter((c) => !tried.has(c.id) && !disabled.has(c.id));
  if (candidates.length === 0) return null;
  for (const channel of candidates) {
    const { admission, moved } = known?.admitting.has(channel.id) ? CLOSED : await health.admit(channel.id, taskId);
    if (admission !== 'open') return { channel, admission, moved };
  }
  const last = await health.lastFailures(candidates.map((c) => c.id));
  // Stable: among equal times, the earlier channel of the order wins.
  const channel = candidates.reduce((best, c) => ((last.get(c.id) ?? 0) < (last.get(best.id) ?? 0) ? c : best));
  return { channel, admission: 'fallback', moved: null };
}

const CLOSED = { admission: 'closed', moved: null } as const;
