// The Postgres reads of polls that missed the cache, batched: the misses that arrive in one turn of
// the event loop are read in one statement. When the cache's entries of many tasks expire together
// (a client polling a thousand tasks, each entry filled within the same second), their misses come
// in bursts of up to one per connection; one statement per burst costs the gateway and Postgres a
// fraction of one round trip per miss (docs/benchmark.md, "The poll path").
import { findTaskViews, TaskView, type Db } from '@mediagen/db';

/** Ids per statement at most; a larger burst is read in several. */
const MAX_BATCH = 500;

export type OwnedTaskView = TaskView & { accountId: string };

interface Waiter {
  resolve: (v: OwnedTaskView | null) => void;
  reject: (err: unknown) => void;
}

export class TaskReads {
  private waiting = new Map<string, Waiter[]>();
  private scheduled = false;

  constructor(private readonly read: (ids: readonly string[]) => Promise<Map<string, OwnedTaskView>>) {}

  /** The task as Postgres has it now (read after this call), or null when there is none. */
  get(taskId: string): Promise<OwnedTaskView | null> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(taskId);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(taskId, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O callbacks of this turn: the requests read from every socket are in.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = [...this.waiting];
    this.waiting = new Map();
    for (let i = 0; i < all.length; i += MAX_BATCH) {
      const batch = all.slice(i, i + MAX_BATCH);
      this.read(batch.map(([id]) => id)).then(
        (rows) => batch.forEach(([id, ws]) => ws.forEach((w) => w.resolve(rows.get(id) ?? null))),
        (err) => batch.forEach(([, ws]) => ws.forEach((w) => w.reject(err))),
      );
    }
  }
}

/** The batched task reads of one gateway (built once per deps, in createDeps). */
export const createTaskReads = (db: Db): TaskReads => new TaskReads((ids) => findTaskViews(db, ids));
