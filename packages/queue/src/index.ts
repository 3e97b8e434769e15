export * from './contracts';
export * from './connection';
export * from './producer';
