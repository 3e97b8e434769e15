// @mediagen/client: the TypeScript SDK of the media generation task service (Node 20+, global fetch).
export { MediaGen } from './client';
export { MediaGen as default } from './client';
export type { ClientOptions } from './http';
export type { GenerateOptions } from './resources/generate';
export type { TaskOptions, WaitOptions } from './resources/tasks';
export { MIN_POLL_MS, MAX_POLL_MS } from './resources/tasks';
export { WebhookVerificationError } from './resources/webhooks';
export type { VerifyOptions, WebhookHeaders } from './resources/webhooks';
export * from './errors';
export type * from './types';
export type { components, operations, paths } from './generated/openapi';
export { VERSION } from './version';
export { batchKeys, DEFAULT_BATCH_CONCURRENCY } from './resources/batch';
export type { BatchItem, BatchOptions, BatchOutcome, BatchProgress } from './resources/batch';
