// @mediagen/webhooks: outbound task events to clients (Standard Webhooks): signing, event bodies,
// the outbox step after a settle, one delivery attempt with its backoff, and the endpoint store.
export * from './signing';
export * from './events';
export * from './schedule';
export * from './send';
export * from './outbox';
export * from './deliver';
export * from './endpoints';
export * from './emit';
export * from './fairness';
