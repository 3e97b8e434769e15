// The channel check's output: one line per channel and upstream model, aligned for a terminal
// ("ok", "bad key", "unknown model", "unreachable", "error", with the time it took), or JSON.
import type { ProbeVerdict } from '@mediagen/providers';
import { type CheckResult, isProblem } from './run-checks';

const WORDS: Record<ProbeVerdict, string> = {
  ok: 'ok', bad_key: 'bad key', unknown_model: 'unknown model', unreachable: 'unreachable', error: 'error', skipped: 'skipped',
};

export const verdictText = (v: ProbeVerdict) => WORDS[v];

export function formatLines(results: readonly CheckResult[]): string[] {
  const w = (f: (r: CheckResult) => string) => Math.max(0, ...results.map((r) => f(r).length));
  const chW = w((r) => r.channel);
  const mW = w((r) => r.upstreamModel);
  const vW = w((r) => WORDS[r.verdict]);
  return results.map((r) =>
    [
      r.channel.padEnd(chW), r.upstreamModel.padEnd(mW), WORDS[r.verdict].padEnd(vW), `${String(r.ms).padStart(5)} ms`,
      `${r.models.join(', ')}${r.disabledInConfig ? ' (disabled in config)' : ''}${r.verdict === 'ok' ? '' : `: ${r.detail}`}`,
    ].join('  '),
  );
}

export function summary(results: readonly CheckResult[]): string {
  const bad = results.filter(isProblem);
  return bad.length === 0
    ? `all ${results.length} checks ok`
    : `${bad.length} of ${results.length} checks need attention: ${bad.map((r) => `${r.channel} ${r.upstreamModel} (${WORDS[r.verdict]})`).join(', ')}`;
}
