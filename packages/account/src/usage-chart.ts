// The usage picture: spend per day over the last 30 days, one stacked bar per day, one colour per
// model, drawn here as SVG (no script, no library, no CDN). Numbers and names are escaped text.
import type { UsageDay } from '@mediagen/db';

const COLOURS = ['#2452c9', '#1b7f3b', '#c77c02', '#8e24aa', '#b3261e', '#00838f', '#5d4037', '#546e7a'];
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface UsageChart {
  svg: string;
  models: { model: string; colour: string; cents: number; tasks: number }[];
  totalCents: number;
}

export function usageChart(rows: UsageDay[], days: number, today = new Date()): UsageChart {
  const dayList: string[] = [];
  for (let i = days - 1; i >= 0; i--) dayList.push(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i)).toISOString().slice(0, 10));
  const modelTotals = new Map<string, { cents: number; tasks: number }>();
  for (const r of rows) {
    const m = modelTotals.get(r.model) ?? { cents: 0, tasks: 0 };
    m.cents += r.cents;
    m.tasks += r.tasks;
    modelTotals.set(r.model, m);
  }
  const models = [...modelTotals.entries()].sort((a, b) => b[1].cents - a[1].cents).map(([model, t], i) => ({ model, colour: COLOURS[i % COLOURS.length], ...t }));
  const colour = new Map(models.map((m) => [m.model, m.colour]));
  const perDay = new Map<string, number>();
  for (const r of rows) perDay.set(r.day, (perDay.get(r.day) ?? 0) + Math.max(0, r.cents));
  const max = Math.max(1, ...perDay.values());
  const W = 900, H = 240, left = 60, bottom = 30, top = 10;
  const bw = (W - left - 10) / days;
  const y = (c: number) => ((H - top - bottom) * c) / max;
  const parts: string[] = [];
  parts.push(`<line x1="${left}" y1="${H - bottom}" x2="${W - 10}" y2="${H - bottom}" stroke="#b8c0cc"/>`);
  parts.push(`<text x="${left - 6}" y="${top + 10}" text-anchor="end" font-size="11" fill="#5b6575">${esc(dollars(max))}</text>`);
  parts.push(`<text x="${left - 6}" y="${H - bottom}" text-anchor="end" font-size="11" fill="#5b6575">$0</text>`);
  dayList.forEach((d, i) => {
    let base = H - bottom;
    const x = left + i * bw + 1;
    for (const r of rows.filter((r) => r.day === d && r.cents > 0)) {
      const h = y(r.cents);
      base -= h;
      parts.push(`<rect x="${x.toFixed(1)}" y="${base.toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${colour.get(r.model)}"><title>${esc(`${d} ${r.model}: ${dollars(r.cents)}, ${r.tasks} task(s)`)}</title></rect>`);
    }
    if (i % 5 === 0 || i === days - 1) parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${H - bottom + 16}" text-anchor="middle" font-size="10" fill="#5b6575">${esc(d.slice(5))}</text>`);
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="usage-title"><title id="usage-title">Spend per day over the last ${days} days</title>${parts.join('')}</svg>`;
  return { svg, models, totalCents: models.reduce((s, m) => s + m.cents, 0) };
}

const dollars = (c: number) => `$${(c / 100).toFixed(2)}`;
