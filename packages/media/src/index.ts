// @mediagen/media: reads client reference files for the submit path. It measures and
// verifies; the caps and prices built on the measurements live in @mediagen/catalog.

export { inspectReferences, type DecodedInline, type Inspection } from './inspect';
export { DEFAULT_MEDIA_POLICY, mediaPolicyFromConfig, type MediaPolicy, type StagedInline } from './policy';
export { decodeDataUri, type DecodedDataUri } from './data-uri';
export { sniffMime, canonicalMime, extensionFor, type SniffedMime } from './sniff';
export { assertPublicUrl, checkUrl, privateAddressReason, UnresolvedHost, type Resolver, type ResolvedAddress, type CheckedUrl } from './url-policy';
export { safeFetch, pinnedRequest, type SafeResponse, type Hop, type HopResponse } from './safe-fetch';
export { pooledRequest, pooledHop, downloadPool, idleDownloadClients, POOLED_CHUNK, type PooledBody, type PooledResponse } from './pooled-request';
export { BufferPool } from './buffer-pool';
export { HttpSource, BufferSource, type ByteSource } from './byte-source';
export { measureMedia, type Measured } from './probe-duration';
export { MediaProblem, isMediaProblem } from './problem';
export { SnapshotBudget, SnapshotBudgetExhausted, DEFAULT_SNAPSHOT_BUDGET_BYTES } from './snapshot-budget';
export { cpuTurn, CPU_TURN_CHARS } from './cpu-turn';
