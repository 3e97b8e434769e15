// Subscribes to the task events (settled tasks) and API-key revocations of packages/queue's
// pub/sub contracts, validating every message on receipt: a malformed message wakes no one.
// One subscriber connection per gateway process. On a Redis Cluster, PUBLISH on any node reaches
// subscribers on every node (classic pub/sub is cluster-wide), and ioredis's Cluster keeps the
// subscription on one node and moves it when that node fails.
import { createRedis, decodeKeyRevoked, decodeTaskEvent, pubsubChannel, RedisClient, RedisTarget, SettledPollEntry } from '@mediagen/queue';

type Listener = (entry?: SettledPollEntry) => void;

export class TaskEvents {
  private sub: RedisClient | null = null;
  private readonly waiters = new Map<string, Set<Listener>>();
  private readonly revokeListeners = new Set<(keyHash: string) => void>();
  private readonly settleListeners = new Set<(taskId: string, entry?: SettledPollEntry) => void>();
  readonly taskChannel: string;
  readonly revokeChannel: string;

  /** `target`: the parsed config (single server or cluster), or a plain redis:// URL (tests). */
  constructor(private readonly target: RedisTarget | string, prefix: string) {
    this.taskChannel = pubsubChannel(prefix, 'taskEvents');
    this.revokeChannel = pubsubChannel(prefix, 'keyRevoked');
  }

  async start(): Promise<void> {
    this.sub = createRedis(typeof this.target === 'string' ? { REDIS_URL: this.target } : this.target, 'consumer');
    this.sub.on('error', () => undefined); // reconnects by itself; readiness is reported elsewhere
    this.sub.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    // SUBSCRIBE is queued until the connection is ready, however long Redis stays down at start
    // (maxRetriesPerRequest: null keeps it queued), and ioredis re-subscribes after every later
    // reconnect. A gateway started while Redis was down thus hears revocations and task events
    // once Redis is back; until then revocation falls back to the cache TTL.
    this.subscribed = this.sub.subscribe(this.taskChannel, this.revokeChannel).then(
      () => true,
      () => false,
    );
    await Promise.race([this.subscribed, new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  /** Resolves true once the subscriptions are in place (tests). */
  subscribed: Promise<boolean> = Promise.resolve(false);

  async stop(): Promise<void> {
    for (const set of this.waiters.values()) for (const l of set) l();
    this.waiters.clear();
    this.sub?.disconnect();
  }

  onKeyRevoked(fn: (keyHash: string) => void): void {
    this.revokeListeners.add(fn);
  }

  /**
   * Every settled task, before its waiters wake (the poll cache replaces its local copy here), with
   * the settled poll entry when the publisher sent one.
   */
  onTaskSettled(fn: (taskId: string, entry?: SettledPollEntry) => void): void {
    this.settleListeners.add(fn);
  }

  /**
   * Resolves when the task settles (with the settled poll entry when the event carried one) or after
   * `ms` (undefined). Register BEFORE enqueueing: a fast render can settle before the submit would
   * otherwise start listening.
   */
  waitForSettle(taskId: string, ms: number): { done: Promise<SettledPollEntry | undefined>; cancel: () => void } {
    let listener!: Listener;
    let timer!: NodeJS.Timeout;
    const done = new Promise<SettledPollEntry | undefined>((resolve) => {
      listener = (entry) => resolve(entry);
      timer = setTimeout(() => resolve(undefined), ms);
    });
    const set = this.waiters.get(taskId) ?? new Set<Listener>();
    set.add(listener);
    this.waiters.set(taskId, set);
    const cancel = () => {
      clearTimeout(timer);
      set.delete(listener);
      if (set.size === 0) this.waiters.delete(taskId);
    };
    done.then(cancel);
    return { done, cancel };
  }

  private onMessage(channel: string, message: string): void {
    if (channel === this.revokeChannel) {
      const keyHash = decodeKeyRevoked(message);
      if (keyHash) for (const fn of this.revokeListeners) fn(keyHash);
      return;
    }
    if (channel !== this.taskChannel) return;
    const event = decodeTaskEvent(message);
    if (!event) return;
    const entry = event.entry?.body.status === event.status ? event.entry : undefined;
    for (const fn of this.settleListeners) fn(event.taskId, entry);
    const set = this.waiters.get(event.taskId);
    if (set) for (const l of [...set]) l(entry);
  }
}
