export * from './console-router';
export * from './deps';
export * from './passwords';
export * from './sessions';
export * from './security';
export { safeNext } from './routes/login.routes';
