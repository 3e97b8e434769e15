// Named (prepared) statements for our own SQL, on connections that are sessions of their own.
//
// node-postgres sends an unnamed statement unless a query has a name, so Postgres parses, analyses
// and plans every statement at every execution. Under load that was most of the server's work: a
// system-wide profile of the in-flight benchmark (perf, 2026-12-01) had Postgres at 41% of both
// cores, 37% of it parsing and planning (raw_parser, pg_analyze_and_rewrite, the planner) the same
// few dozen statements again and again. Named once per connection, a statement is parsed once, and
// after five runs Postgres keeps a generic plan when it costs no more than the custom ones (its
// plan_cache_mode = auto), so most executions skip planning too.
//
// Behind a pooler in transaction mode (PgBouncer without max_prepared_statements) a named
// statement breaks: it is prepared on one server session and executed on another. So a connection
// gets names only when it proves, right after it opened, that the option we sent at startup
// reached a Postgres session (OWN_SESSION_OPTION): PgBouncer refuses an unknown startup option
// (client.ts then opens connections without ours) or, with ignore_startup_parameters, drops it.
// DB_PREPARED_STATEMENTS=false turns it off for any other pooler that passes options on.
import { createHash } from 'node:crypto';

/** A custom setting sent in the startup `options`; a session that has it is the one we opened. */
export const OWN_SESSION_OPTION = 'mediagen.own_session=on';

/** Read right after connecting: the setting above, or null when the server session lacks it. */
export const SESSION_PROBE = `SELECT current_setting('mediagen.own_session', true) AS own`;

export const provesOwnSession = (value: string | null | undefined): boolean => value === 'on';

/**
 * Most names one connection is given. Our statements are a fixed set (a few dozen texts per
 * schema); a text built at run time with a varying shape would otherwise prepare without end on
 * every server session. Past it a connection sends the rest unnamed.
 */
export const MAX_NAMES_PER_CONNECTION = 256;

/** SQLSTATEs a named statement gets only where sessions are shared: none is named from then on. */
const SHARED_SESSION_CODES = new Set(['26000', '42P05']);

export const failsAsSharedSession = (err: unknown): boolean => SHARED_SESSION_CODES.has(String((err as { code?: unknown } | null)?.code ?? ''));

/** Statement names by text: the same text gets the same name on every connection. */
export class PreparedNames {
  private readonly byText = new Map<string, string>();

  /** The name of `text` on a connection that has `given` names already; null to send it unnamed. */
  nameOn(given: Set<string>, text: string): string | null {
    let name = this.byText.get(text);
    if (name === undefined) {
      name = `mg_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
      // Bounded like the per-connection set: past it texts are named again on their next use.
      if (this.byText.size >= MAX_NAMES_PER_CONNECTION * 8) this.byText.clear();
      this.byText.set(text, name);
    }
    if (given.has(name)) return name;
    if (given.size >= MAX_NAMES_PER_CONNECTION) return null;
    given.add(name);
    return name;
  }
}
