export * from './console-router';
export * from './deps';
export * from './passwords';
export * from './login-limiter';
export * from './sessions';
export * from './security';
export { safeNext } from './routes/login.routes';
