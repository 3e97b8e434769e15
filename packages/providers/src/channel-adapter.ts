// What the worker needs from an upstream channel. Every method throws UpstreamError only, already
// classified, so the worker's state machine never looks at HTTP details.
import type { Readable } from 'node:stream';
import type { TaskSpec } from '@mediagen/catalog';
import type { Channel } from './channel-config';
import type { UpstreamError } from './upstream-error';

export interface RenderRequest {
  taskId: string;
  spec: TaskSpec;
  /** Output length the task was priced for (video), from Task.params.outputSeconds. */
  outputSeconds: number | null;
}

export type RenderStatus =
  | { state: 'running'; progress: number }
  | { state: 'succeeded'; outputs: ResultRef[] }
  | { state: 'failed'; error: UpstreamError };

/** Where the provider keeps one result file. */
export interface ResultRef {
  url: string;
  contentType?: string;
}

export interface ResultFile {
  stream: Readable;
  contentType: string;
  /** From Content-Length, when the provider sent it. */
  bytes?: number;
}

export interface ChannelAdapter {
  readonly channel: Channel;
  /**
   * Starts a render. The idempotency key names the attempt: submitting again with the same key
   * (after a crash or a timeout whose answer was lost) returns the same render, not a second one.
   */
  submit(req: RenderRequest, idempotencyKey: string): Promise<{ upstreamId: string }>;
  poll(upstreamId: string): Promise<RenderStatus>;
  fetchResult(ref: ResultRef): Promise<ResultFile>;
  classifyError(err: unknown, action: string): UpstreamError;
  close(): void;
}
