// What the worker needs from an upstream channel, whatever its wire protocol. Every method throws
// UpstreamError only, already classified, so the worker's state machine never looks at HTTP
// details. An adapter states what its upstream can and cannot do (capabilities); the worker decides
// from those, never from the protocol's name. Adapters never download result files: they return
// ResultRefs, and the worker fetches every one through download.ts (one hardened path).
import type { TaskSpec } from '@mediagen/catalog';
import type { Channel } from './channel-config';
import type { ModelProbe } from './channel-probe';
import type { Coverage } from './coverage';
import type { UpstreamError } from './upstream-error';

export interface AdapterCapabilities {
  /**
   * The upstream deduplicates a repeated submit by a key we send (RenderRequest.attemptId). None
   * of the five real protocols do; only the simulator's http-jobs does. Without it a resumed
   * attempt whose submit may have reached the upstream is not blindly submitted again.
   */
  idempotentSubmit: boolean;
  /** The upstream has a cancel call (the adapter implements cancel()). */
  cancel: boolean;
  /** How the upstream calls back: 'none'; 'hint' (unsigned: it only wakes the task); 'signed' (verified). */
  callbacks: 'none' | 'hint' | 'signed';
  /**
   * Some models answer with the result in the submit call itself (Seedream, Gemini image): the
   * submit then returns `status` and no poll follows.
   */
  synchronous: boolean;
  /**
   * The adapter can look for a render that a lost submit may have started (by metadata or a
   * client reference we sent, matched in the upstream's list of renders), via findOrphan().
   * ModelArk (a seed per attempt, listed tasks) and Replicate (listed predictions: our webhook
   * URL, else the input) can; fal, MiniMax and Gemini cannot (docs/providers.md).
   */
  findOrphan: boolean;
  /**
   * poll() needs the render asked for (RenderContext: the stored spec) to say what a finished
   * render cost: fal's id names the app but not its sub-path, Veo's operation no length. The worker
   * starts a poll before the task's row is loaded only on adapters that do not (the status itself
   * never depends on it): stating the need keeps every adapter's answers as they are, instead of
   * pricing some without the render or splitting the read from the pricing in two protocols.
   */
  pollUsesRender: boolean;
}

export type ReferenceRole = 'first_frame' | 'last_frame' | 'reference_image' | 'reference_video' | 'reference_audio';

export interface RenderReference {
  role: ReferenceRole;
  /** A URL the upstream can fetch (our storage's copy, or the client's measured URL). */
  url: string;
  /** Sniffed mime type when known (inline files), else the kind's family ('image/*'). */
  contentType: string;
  /** The bytes, for upstreams that want inline base64 (Gemini); fetched through the media policy. */
  data(): Promise<Buffer>;
}

export interface RenderRequest {
  taskId: string;
  /** The TaskAttempt id: unique per attempt, stable across a resumed job (the idempotency key where honoured). */
  attemptId: string;
  spec: TaskSpec;
  /** Output length the task was priced for (video), from Task.params.outputSeconds. */
  outputSeconds: number | null;
  /**
   * Every reference file, in the order our `<Picture N>` / `<Audio N>` numbering expects: frames
   * first (first, last), then `media` / `images` in request order.
   */
  references: RenderReference[];
  /**
   * Where the upstream may call back (`${PUBLIC_BASE_URL}/hooks/upstream/{channelId}?task=..&token=..`);
   * set only when capabilities.callbacks != 'none'. The query carries the per-task token unsigned
   * upstreams need; signed ones may ignore it.
   */
  callbackUrl?: string;
  /**
   * When this attempt's submit was first sent, on a resumed attempt whose answer was lost (crash,
   * timeout): findOrphan looks only at renders the upstream created from then on (less a clock skew).
   */
  submitSentAt?: Date;
  /**
   * The submit's hard deadline (the worker's, from just before it marked the submit sent): every
   * call of submit() passes it on, so nothing is sent and no answer is taken after it fires. Until
   * then another run of the job treats the submit as in flight and does not send it again.
   */
  signal?: AbortSignal;
}

/**
 * What a poll may need beyond the upstream id: the render that was asked for. A status names the
 * upstream's job, not always its model or length (fal's id names the app but not its sub-path,
 * Veo's operation no length), and the price of a render depends on both.
 */
export type RenderContext = Pick<RenderRequest, 'spec' | 'outputSeconds'>;

/** What the upstream says the render used, as it reports it (tokens, seconds), and its cost when known. */
export interface UpstreamUsage {
  /** 'tokens', 'seconds', 'images', 'predict_seconds', ... */
  units: string;
  amount: number;
  /** The upstream's price for it in micro-USD, when the adapter knows or the upstream reports it. */
  costMicroUsd?: number;
}

/** A result: a URL to download through download.ts, or bytes the upstream sent inline. */
export type ResultRef =
  | { kind: 'url'; url: string; contentType?: string; headers?: Record<string, string> }
  | { kind: 'inline'; data: Buffer; contentType: string };

export type RenderStatus =
  | { state: 'running'; progress: number }
  | { state: 'succeeded'; outputs: ResultRef[]; usage?: UpstreamUsage }
  | { state: 'failed'; error: UpstreamError };

export interface SubmitResult {
  upstreamId: string;
  /** Synchronous upstreams: the finished status, so no poll is needed. */
  status?: RenderStatus;
}

export interface CallbackInput {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  query: Record<string, string>;
}

/** What a believable upstream callback says (ChannelAdapter.verifyCallback). */
export interface CallbackVerdict {
  upstreamId: string;
  /**
   * The result files the callback says the render finished with (plain URLs the status read would
   * name too, no headers needed), when it says so. Never the outcome: the worker starts their
   * downloads beside its status read and keeps one only when that read names the same URL
   * (apps/worker early-status.ts).
   */
  resultUrls?: string[];
}

export interface ChannelAdapter {
  /** The protocol's branch of the channel config union. */
  readonly channel: Channel;
  readonly capabilities: AdapterCapabilities;
  /**
   * Checked when the config is loaded: why this channel can never serve this model (or variant)
   * under the upstream model it maps (a video model on an image API, a host whose inputs the adapter
   * does not know), or null. Such a mapping is a startup error naming the model and the channel.
   */
  unsupported?(model: string, variant: string | null): string | null;
  /**
   * What this channel renders of the model (or variant): the options its protocol and upstream
   * model can take (coverage.ts). Routing picks, per task, only channels whose coverage holds the
   * task's options. Absent: everything the catalog sells.
   */
  coverage?(model: string, variant: string | null): Coverage;
  /** The upstream model a task would be sent to on this channel (default: the channel's `models` entry). */
  upstreamModel?(spec: TaskSpec): string | undefined;
  /**
   * The channel check (channel-probe.ts): with the channel's key, the cheapest request that proves
   * the base URL answers, the key is accepted and the upstream model exists, without rendering.
   */
  probeModel?(upstreamModel: string, signal: AbortSignal): Promise<ModelProbe>;
  submit(req: RenderRequest): Promise<SubmitResult>;
  /** How long a submit of this request may stay open (its call's deadline); default channel.timeouts.submitMs. */
  submitDeadlineMs?(req: RenderRequest): number;
  poll(upstreamId: string, render?: RenderContext): Promise<RenderStatus>;
  /** Asks the upstream to stop a render we gave up on (task timeout); best effort. */
  cancel?(upstreamId: string): Promise<void>;
  /**
   * A render this attempt may have started although its submit answer was lost (capabilities.findOrphan):
   * the upstream id, or null when the upstream has none for this attempt.
   */
  findOrphan?(req: RenderRequest): Promise<string | null>;
  /**
   * Verifies (signed) or decodes (hint) an upstream callback: the upstream id it concerns, or null
   * when it is not ours or its signature does not verify. Never trusted beyond waking the task.
   */
  verifyCallback?(input: CallbackInput): Promise<CallbackVerdict | null>;
  classifyError(err: unknown, action: 'submit' | 'status' | 'download' | 'cancel'): UpstreamError;
  close(): void;
}
