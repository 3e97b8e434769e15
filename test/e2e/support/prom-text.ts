// Reads values out of a Prometheus text exposition, for tests that scrape /metrics.

/** The sample of `name` whose labels include all of `labels` (summed over the other labels). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = parseLabels(m[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      sum += Number(m[3]);
      found = true;
    }
  }
  return found ? sum : 0;
}

/** Every label value that appears in the text, for "no task id in any label" checks. */
export function allLabelValues(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^[a-zA-Z_:][\w:]*\{(.*)\}\s+\S+$/.exec(line);
    if (m) out.push(...Object.values(parseLabels(m[1])));
  }
  return out;
}

function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2].replace(/\\(.)/g, '$1');
  return out;
}
