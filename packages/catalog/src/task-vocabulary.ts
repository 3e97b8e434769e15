// The task vocabulary clients see, declared once: the statuses a task moves through and the codes a
// failed task carries. The response schemas, the OpenAPI document, the listings' filters, the
// console and packages/db (its SQL fragments and FailureCode) all take these lists from here;
// test/structure/vocabulary.test.ts fails when a list is written out again elsewhere.

/** Every status of a task, in the order a task moves through them (Prisma's enum "TaskStatus" holds the same values). */
export const TASK_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type TaskStatusName = (typeof TASK_STATUSES)[number];

/** The statuses a task can still leave: it holds an in-progress slot and may be settled. */
export const OPEN_TASK_STATUSES = ['pending', 'processing'] as const satisfies readonly TaskStatusName[];

/** What a failed task's `errorCode` says. `cancelled` is an extension (POST /api/{type}/tasks/{taskId}/cancel, docs/api.md). */
export const TASK_ERROR_CODES = ['content_violation', 'generation_failed', 'no_result', 'timeout', 'cancelled'] as const;
export type TaskErrorCode = (typeof TASK_ERROR_CODES)[number];

/** The statuses a task ends in: settled, its slot released, its private inputs no longer needed. */
export const SETTLED_TASK_STATUSES = ['completed', 'failed'] as const satisfies readonly TaskStatusName[];
