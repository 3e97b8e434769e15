export * from './client';
export * from './ids';
export * from './settlement';
export * from './billing';
export * from './idempotency';
export * from './generated/client';
export * from './sql';
export * from './tasks';
