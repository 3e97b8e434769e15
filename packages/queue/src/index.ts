export * from './backoff';
export * from './contracts';
export * from './connection';
export * from './producer';
export * from './pubsub';
export * from './poll-entry';
export * from './task-event-publisher';
export * from './step-first-worker';
