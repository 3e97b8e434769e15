// The channel check (`npm run channels:check`, the console's check button, CHANNEL_CHECK_AT_START).
export * from './check-targets';
export * from './run-checks';
export * from './report';
export * from './render-check';
