export * from './client';
export * from './ids';
export * from './generated/client';
