// Channel health shared by all workers through Redis: a circuit breaker per upstream channel,
// recent outcome counts, and the channel list the gateway shows at GET /admin/channels.
export * from './keys';
export * from './breaker';
export * from './pick-channel';
export * from './health-view';
export * from './operator-disable';
export * from './model-unavailable';
export * from './check-results';
export * from './choice-reads';
