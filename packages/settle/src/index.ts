export * from './settle';
export * from './failure-messages';
