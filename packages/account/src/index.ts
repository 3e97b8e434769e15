export * from './account-router';
export * from './deps';
export * from './mailer';
export * from './stripe-billing';
export * from './stripe-webhook';
export { safeAccountNext, MIN_HOLDER_PASSWORD } from './routes/auth.routes';
export { newLinkToken } from './links';
export { csvField } from './routes/usage.routes';
