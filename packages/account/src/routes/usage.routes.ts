// Balance and usage: the balance with the ledger (keyset pages, links to tasks) and the models this
// deployment sells (SOLD_MODELS) with the catalog's prices, a CSV export of the whole ledger
// (streamed page by page), and the 30-day usage chart per day and model.
import { Router } from 'express';
import { describePrice, soldModelSummaries } from '@mediagen/catalog';
import { accountBalance, listLedgerPage, usageByDayAndModel } from '@mediagen/db';
import { decodePageCursor, encodePageCursor, Render } from '@mediagen/console';
import type { AccountDeps } from '../deps';
import { accountOf } from '../holder-session';
import { usageChart } from '../usage-chart';

const PAGE = 50;
export const USAGE_DAYS = 30;

/** A CSV field: quoted, and a leading =, +, - or @ neutralised so a spreadsheet never runs it as a formula. */
export const csvField = (v: unknown): string => {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
};

export function usageRoutes(deps: AccountDeps, render: Render): Router {
  const r = Router();
  // The catalog and SOLD_MODELS do not change while the process runs.
  const offered = soldModelSummaries(deps.sold).map(({ model, options, prices }) => ({
    id: model.id,
    type: model.type,
    options,
    prices: prices.map((p) => ({ what: p.what, price: describePrice(p) })),
  }));

  r.get('/ledger', async (req, res) => {
    const accountId = accountOf(res);
    const [balance, page] = await Promise.all([accountBalance(deps.db, accountId), listLedgerPage(deps.db, accountId, PAGE, decodePageCursor(req.query.cursor))]);
    render(res, 'ledger', { title: 'Balance and ledger', balance: balance ?? 0, ledger: page.rows, nextCursor: encodePageCursor(page.next), offered });
  });

  r.get('/ledger.csv', async (_req, res) => {
    const accountId = accountOf(res);
    res.status(200).type('text/csv; charset=utf-8').set({ 'Content-Disposition': 'attachment; filename="ledger.csv"', 'Cache-Control': 'no-store' });
    res.write('id,created_at,kind,amount_cents,task_id,reason\r\n');
    let before: Parameters<typeof listLedgerPage>[3];
    for (;;) {
      const page = await listLedgerPage(deps.db, accountId, 1000, before);
      res.write(page.rows.map((e) => [e.id, e.createdAt, e.kind, e.amountCents, e.taskId, e.reason].map(csvField).join(',') + '\r\n').join(''));
      if (!page.next) break;
      before = page.next;
    }
    res.end();
  });

  r.get('/usage', async (_req, res) => {
    const rows = await usageByDayAndModel(deps.db, accountOf(res), USAGE_DAYS);
    render(res, 'usage', { title: 'Usage', days: USAGE_DAYS, chart: usageChart(rows, USAGE_DAYS) });
  });

  return r;
}
