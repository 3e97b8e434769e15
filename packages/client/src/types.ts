// Public types of the SDK, named from the types generated out of the service's OpenAPI document
// (generated/openapi.ts), so they follow the service whenever the document changes.
import type { components } from './generated/openapi';

type Schemas = components['schemas'];

export type VideoGenerateParams = Schemas['VideoSubmitBody'];
export type ImageGenerateParams = Schemas['ImageSubmitBody'];
export type SubmitResponse = Schemas['SubmitResponse'];
/** A task as a poll answers it (spec 4.2). */
export type Task = Schemas['PollResponse'];
export type TaskStatus = Task['status'];
export type TaskType = Task['type'];
export type TaskErrorCode = NonNullable<Task['errorCode']>;
export type Balance = Schemas['BalanceResponse'];
/** Every `code` an error response of the service can carry (the union of the per-status error bodies). */
export type ErrorCode = Schemas[Extract<keyof Schemas, `Error${number}`>]['code'] | Schemas['InsufficientBalanceResponse']['code'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type ModelId = VideoGenerateParams['model'] | ImageGenerateParams['model'];

/** A submitted task, with the kind the SDK needs to poll it. */
export type SubmittedTask = SubmitResponse & { type: TaskType };

/** One item of GET /api/tasks: the poll body plus taskId, model, createdAt (design.md section 4). */
export type TaskListItem = Task & { taskId: string; model: string; createdAt: string };
export interface TaskPage {
  data: TaskListItem[];
  nextCursor: string | null;
}
export interface TaskListParams {
  status?: TaskStatus;
  type?: TaskType;
  model?: string;
  /** Items per page. */
  limit?: number;
  /** Start after this cursor (a page's nextCursor). */
  cursor?: string;
}

/** The webhook event body (Standard Webhooks; design.md section 4, "Webhooks to clients"). */
export interface WebhookEvent {
  type: 'task.completed' | 'task.failed';
  timestamp: string;
  data: TaskListItem | (Task & { taskId: string; model: string });
}
