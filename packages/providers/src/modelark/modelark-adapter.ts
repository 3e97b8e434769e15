// Adapter for BytePlus ModelArk / Volcengine Ark (providers.md §1, §4):
//   Seedance video   POST   {base}/contents/generations/tasks        -> {id}
//                    GET    {base}/contents/generations/tasks/{id}   -> task (status, content.video_url, usage)
//                    DELETE {base}/contents/generations/tasks/{id}   cancels a queued task only
//   Seedream images  POST   {base}/images/generations                -> the images, synchronously
// Auth: `Authorization: Bearer <key>`. Callbacks (`callback_url`) are unsigned, so they are hints.
// No idempotency key exists. A Seedance task whose create answer was lost is found again in the
// list endpoint by its seed (modelark-orphan.ts; setting `orphanSearch`):
//                    GET    {base}/contents/generations/tasks?page_num&page_size&filter.model -> {items, total}
import { isAxiosError } from 'axios';
import type { AdapterCapabilities, ChannelAdapter, RenderRequest, RenderStatus, SubmitResult } from '../channel-adapter';
import { createUpstreamHttp } from '../upstream-http';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import type { ModelarkChannel } from './modelark-config';
import { classifyModelarkError, type ModelarkAction } from './modelark-errors';
import { ORPHAN_MAX_PAGES, ORPHAN_PAGE_SIZE, orphanSince } from '../orphan-search';
import { pageBeforeWindow, seedanceOrphans } from './modelark-orphan';
import { seedanceBody, seedanceSeed, seedreamBody, wholeSeconds } from './modelark-request';
import { modelarkCoverage, modelarkMappingError } from './modelark-coverage';
import { probeModelarkModel } from './modelark-probe';
import { seedanceCreateSchema, seedanceListSchema, seedanceTaskSchema, seedreamAnswerSchema } from './modelark-schemas';
import { seedanceStatus, seedreamStatus } from './modelark-status';

/** Prefix of the ids we give synchronous Seedream renders: there is nothing upstream to poll. */
export const SEEDREAM_ID_PREFIX = 'seedream:';

export const MODELARK_CAPABILITIES: AdapterCapabilities = {
  idempotentSubmit: false,
  cancel: true,
  callbacks: 'hint',
  synchronous: true,
  findOrphan: true,
  pollUsesRender: false,
};

export function createModelarkAdapter(channel: ModelarkChannel): ChannelAdapter {
  const { client, close } = createUpstreamHttp(channel, { headers: { Authorization: `Bearer ${channel.apiKey}` } });
  const classifyError = (err: unknown, action: ModelarkAction) => classifyModelarkError(err, action, channel.reportsViolations);
  const call = async <T>(action: ModelarkAction, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw classifyError(err, action);
    }
  };
  const parse = <T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } } }, data: unknown, what: string): T => {
    const r = schema.safeParse(data);
    // An answer we cannot read: like a dropped connection, the next call may read fine.
    if (!r.success) throw unknownAnswer(`${what}: unexpected answer from the upstream`);
    return r.data;
  };

  return {
    channel,
    capabilities: { ...MODELARK_CAPABILITIES, findOrphan: channel.orphanSearch !== false },
    unsupported: (model) => modelarkMappingError(model, channel.models[model]),
    coverage: (model) => modelarkCoverage(model, channel.models[model]),
    probeModel: (model, signal) => probeModelarkModel(client, model, signal),
    classifyError,

    submit: (req: RenderRequest) =>
      call('submit', async (): Promise<SubmitResult> => {
        const model = channel.models[req.spec.model];
        if (!model) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
        if (req.spec.type === 'image') {
          // Seedream renders inside the call: the submit deadline is the render's deadline.
          const res = await client.post('/images/generations', seedreamBody(req, req.spec, model, channel), { timeout: channel.timeouts.submitMs, signal: req.signal });
          // An answer we cannot read after a synchronous render: the render happened (and is billed),
          // so asking this channel again would pay it twice; the next channel renders it instead.
          const answer = seedreamAnswerSchema.safeParse(res.data);
          if (!answer.success) throw new UpstreamError('failed', 'submit: unexpected answer from the upstream (Seedream images)');
          const status = seedreamStatus(answer.data, channel.reportsViolations, channel.prices, model);
          return { upstreamId: `${SEEDREAM_ID_PREFIX}${req.attemptId}`, status };
        }
        const res = await client.post('/contents/generations/tasks', seedanceBody(req, req.spec, model, channel), { timeout: channel.timeouts.submitMs, signal: req.signal });
        const created = seedanceCreateSchema.safeParse(res.data);
        // 200 without an id: we cannot know whether a render started, and asking again could start a second.
        if (!created.success) throw new UpstreamError('failed', 'submit: the upstream answered without a task id');
        return { upstreamId: created.data.id };
      }),

    poll: (upstreamId: string) =>
      call('status', async (): Promise<RenderStatus> => {
        if (upstreamId.startsWith(SEEDREAM_ID_PREFIX))
          // The image came (or was lost) with the submit answer; a worker that crashed before
          // storing it has nothing to come back to.
          throw new UpstreamError('lost', 'status: a synchronous image render cannot be polled; its answer was lost');
        const res = await client.get(`/contents/generations/tasks/${encodeURIComponent(upstreamId)}`, { timeout: channel.timeouts.pollMs });
        return seedanceStatus(parse(seedanceTaskSchema, res.data, 'status'), channel.reportsViolations, channel.prices);
      }),

    // Errors are classified as the submit's: a list the upstream does not offer (404) is `failed`,
    // and the worker then submits without a search; a transient one makes it search again later.
    findOrphan: (req: RenderRequest) =>
      call('submit', async (): Promise<string | null> => {
        const model = channel.models[req.spec.model];
        // Seedream answered (or not) inside the lost call: there is no task to find.
        if (channel.orphanSearch === false || !model || req.spec.type !== 'video') return null;
        const seed = seedanceSeed(req, req.spec, channel)!;
        const seconds = req.outputSeconds ?? req.spec.duration;
        const query = {
          seed, ownSeed: req.spec.seed === null, ratio: req.spec.ratio, since: orphanSince(req.submitSentAt),
          ...(seconds !== null ? { duration: wholeSeconds(seconds) } : {}),
          ...(req.spec.resolution ? { resolution: req.spec.resolution } : {}),
        };
        const found: string[] = [];
        for (let page = 1; page <= ORPHAN_MAX_PAGES; page++) {
          const res = await client.get('/contents/generations/tasks', {
            params: { page_num: page, page_size: ORPHAN_PAGE_SIZE, 'filter.model': model },
            timeout: channel.timeouts.pollMs,
          });
          const list = seedanceListSchema.safeParse(res.data);
          if (!list.success) throw new UpstreamError('failed', 'orphan search: the task list is not {items, total}');
          const items = list.data.items ?? [];
          found.push(...seedanceOrphans(items, query));
          if (query.ownSeed && found.length) return found[0];
          if (items.length < ORPHAN_PAGE_SIZE || pageBeforeWindow(items, query.since)) break;
        }
        // A client's seed may be shared by another task: only an unambiguous match is adopted.
        return found.length === 1 ? found[0] : null;
      }),

    async cancel(upstreamId: string): Promise<void> {
      if (upstreamId.startsWith(SEEDREAM_ID_PREFIX)) return;
      try {
        await client.delete(`/contents/generations/tasks/${encodeURIComponent(upstreamId)}`, { timeout: channel.timeouts.pollMs });
      } catch (err) {
        // Only a queued task can be cancelled (providers.md 1.8): a running one answers an error and
        // keeps rendering, billed. That refusal is reported, so that a client's cancel leaves the
        // render to finish (docs/api.md: a refused cancel clears the mark) instead of refunding a
        // video we pay for; a task the upstream no longer knows (404) leaves nothing to cancel.
        if (isAxiosError(err) && err.response?.status === 404) return;
        throw classifyError(err, 'cancel');
      }
    },

    // ModelArk POSTs the task object on every status change, unsigned: its id wakes the task (the
    // per-task token in the callback URL is checked by the hook route), and a succeeded task's
    // video_url is passed on as a claim, whose download the worker starts beside the GET that
    // decides (providers.md 1.9: re-fetch the task before acting).
    async verifyCallback({ rawBody }) {
      try {
        const task = seedanceTaskSchema.safeParse(JSON.parse(rawBody.toString('utf8')));
        if (!task.success || !task.data.id) return null;
        const url = task.data.status.toLowerCase() === 'succeeded' ? task.data.content?.video_url : null;
        return url ? { upstreamId: task.data.id, resultUrls: [url] } : { upstreamId: task.data.id };
      } catch {
        return null;
      }
    },

    close,
  };
}
