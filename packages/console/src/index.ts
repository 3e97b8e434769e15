export * from './console-router';
export * from './deps';
export * from './passwords';
export * from './login-limiter';
export * from './sessions';
export * from './security';
export { safeNext } from './routes/login.routes';
// The web layer shared with the account holders' pages (packages/account).
export * from './console-error';
export * from './forms';
export * from './form-once';
export * from './form-csrf';
export * from './page-cursor';
export * from './form-body';
export * from './render';
export { requireCsrf } from './guards';
