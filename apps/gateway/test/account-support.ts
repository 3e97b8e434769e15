// The account pages' test doubles (test/e2e/support/account-doubles.ts), and a cookie-keeping
// browser over supertest that reads the CSRF token out of each page.
import request from 'supertest';
import type { App } from 'supertest/types';

export * from '../../../test/e2e/support/account-doubles';

/** A browser: keeps cookies, and every form post carries the page's `_csrf`. */
export function browser(app: App) {
  const agent = request.agent(app);
  let csrf = '';
  const keep = (r: request.Response) => {
    const m = /name="_csrf" value="([^"]+)"/.exec(r.text ?? '');
    if (m) csrf = m[1];
    return r;
  };
  return {
    agent,
    get: async (path: string) => keep(await agent.get(path)),
    post: async (path: string, form: Record<string, string> = {}, opts: { csrf?: boolean } = {}) =>
      keep(await agent.post(path).type('form').send(opts.csrf === false ? form : { _csrf: csrf, ...form })),
    csrf: () => csrf,
  };
}
