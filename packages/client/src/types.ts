// Public types of the SDK, named from the types generated out of the service's OpenAPI document
// (generated/openapi.ts), so they follow the service whenever the document changes.
import type { components, operations } from './generated/openapi';

type Schemas = components['schemas'];

export type VideoGenerateParams = Schemas['VideoSubmitBody'];
export type ImageGenerateParams = Schemas['ImageSubmitBody'];
export type SubmitResponse = Schemas['SubmitResponse'];
/** A task as a poll answers it. */
export type Task = Schemas['PollResponse'];
export type TaskStatus = Task['status'];
export type TaskType = Task['type'];
export type TaskErrorCode = NonNullable<Task['errorCode']>;
export type Balance = Schemas['BalanceResponse'];
/** GET /api/models: what the service sells (it may sell a subset of the catalog). */
export type ModelList = Schemas['ModelListResponse'];
/** What a generate body would cost (POST /api/{video,image}/quote). */
export type Quote = Schemas['QuoteResponse'];
/** Every `code` an error response of the service can carry (the union of the per-status error bodies). */
export type ErrorCode = Schemas[Extract<keyof Schemas, `Error${number}`>]['code'] | Schemas['InsufficientBalanceResponse']['code'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type ModelId = VideoGenerateParams['model'] | ImageGenerateParams['model'];

/** A submitted task, with the kind the SDK needs to poll it. */
export type SubmittedTask = SubmitResponse & { type: TaskType };

/** One item of GET /api/tasks: the poll body plus taskId, model, createdAt. */
export type TaskListItem = Schemas['TaskListItem'];
/** A page of GET /api/tasks; `nextCursor` is null on the last page. */
export type TaskPage = Schemas['TaskListResponse'];
export type TaskListParams = NonNullable<operations['listTasks']['parameters']['query']>;
/** The task after a cancel: failed with errorCode `cancelled` (200), or processing with `cancelRequested` (202). */
export type CancelResult = Schemas['CancelResponse'];
/** The webhook event body (Standard Webhooks): `type`, `timestamp`, `data` = poll body + taskId + model. */
export type WebhookEvent = Schemas['WebhookEvent'];
