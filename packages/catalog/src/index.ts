// The catalog's public surface: models, limits, prices, request/response schemas, validation and
// cost. Pure code, no I/O; the gateway, the media prober and the worker import only from here.
export * from './types';
export * from './limits';
export * from './models';
export * from './video-a-modes';
export * from './prices';
export * from './request-schemas';
export * from './response-schemas';
export * from './task-vocabulary';
export { INLINE_MIME_TYPES, base64DecodedBytes, base64DecodedBytesOf, DATA_URI_HEADER } from './media-items';
export { formatPath } from './zod-issues';
export { parseVideoSubmit } from './video-submit';
export { parseImageSubmit } from './image-submit';
export { parseSoldModels, checkSold, optionsOf, soldModelSummaries, SoldModelsError, WHOLE_CATALOG, type SoldCatalog, type SoldModelSummary } from './sold';
export { pollBody, type TaskBodyRow } from './task-bodies';
export { parseCallbackUrl, MAX_CALLBACK_URL_CHARS } from './callback-url';
export { checkMeasuredLimits, lipSyncOutputSeconds, ceilSeconds, overLimit, MEASURE_TOLERANCE_MS } from './measured-limits';
export { computeCost, microsToCents } from './cost';
export * from './extension-schemas';
export { storedTaskParamsSchema, parseStoredTaskParams, type StoredTaskParams } from './stored-params';
export { quoteResponseSchema, quoteBody, type QuoteResponse } from './quote-schemas';
