// Server-side rendering with Eta: templates under ../views, every `<%= %>` HTML-escaped (Eta's
// autoEscape), so customer and upstream text (prompts, file names, provider messages) can only
// ever appear as text. Raw output (`<%~ %>`) is used only for the layout's body and includes.
// The account holders' pages (packages/account) render through this too, from their own views.
import path from 'node:path';
import { Eta } from 'eta';
import type { Response } from 'express';
import type { SessionRecord } from '@mediagen/db';

export const VIEWS_DIR = path.resolve(__dirname, '../views');

/** `views`: the folder of the templates (the console's own by default). */
export function createRenderer(cache: boolean, views: string = VIEWS_DIR) {
  const eta = new Eta({ views, cache, autoEscape: true, autoTrim: false });
  return (res: Response, view: string, data: Record<string, unknown>, status = 200) => {
    const session = res.locals.session as Pick<SessionRecord, 'csrfToken'> | undefined;
    const html = eta.render(`./${view}`, { ...pageHelpers, session, csrf: session?.csrfToken, ...data });
    res.status(status).type('html').set('Cache-Control', 'no-store').send(html);
  };
}
export type Render = ReturnType<typeof createRenderer>;

/** Formatting shared by every template. */
export const pageHelpers = {
  money: (cents: number) => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`,
  iso: (d: Date | string | null | undefined) => (d == null ? '' : typeof d === 'string' ? d : d.toISOString()),
  /** Query string of `base` with `over` applied, empty values dropped (pagination links keep the filters). */
  qs: (base: Record<string, unknown>, over: Record<string, unknown> = {}) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...base, ...over })) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
    const s = p.toString();
    return s ? `?${s}` : '';
  },
  ms: (a: Date | null, b: Date | null) => (a && b ? `${((b.getTime() - a.getTime()) / 1000).toFixed(1)} s` : ''),
};
