// Limits and switches of reference-media inspection, built once from the service config.

import type { StagedDataUri } from '@mediagen/catalog';
import type { SnapshotBudget } from './snapshot-budget';

/** An address a host name resolves to; url-policy.ts checks each before anything connects. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The DNS seam of the policy (`resolve`). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface MediaPolicy {
  /** ALLOW_PRIVATE_MEDIA_URLS: http:// and loopback/private addresses allowed (dev and tests only). */
  allowPrivate: boolean;
  /** Whole inspection deadline for one submit, all references together. */
  timeoutMs: number;
  /** Bytes read from one URL, over all its requests; memory per ref is bounded by it too. */
  maxBytesPerRef: number;
  maxRedirects: number;
  /** DNS seam: defaults to the system resolver. Tests map made-up host names to local addresses. */
  resolve?: Resolver;
  /** References inspected at once; the rest wait their turn under the same deadline. */
  concurrency?: number;
  /**
   * Snapshot video and audio URL references, so what is measured and billed is what the provider gets: download the whole file (at most
   * maxSnapshotBytes), measure those bytes, and hand them back in `inline` so the caller stores them
   * and gives the provider our copy: the provider receives exactly the bytes that were measured.
   * Off by default (the library's range probing); the gateway turns it on.
   */
  snapshot?: boolean;
  maxSnapshotBytes?: number;
  /** Bytes of snapshots in flight in this process (snapshot-budget.ts); the shared 256 MiB one by default. */
  snapshotBudget?: SnapshotBudget;
  /** This request's data URIs already written to storage, by the stand-in string the body holds. */
  staged?: ReadonlyMap<string, StagedInline>;
}

/** A data URI of the request written to storage while it arrived (the gateway's streamed large bodies). */
export interface StagedInline extends StagedDataUri {
  /** The first decoded bytes (at least the 64 sniffMime reads, unless the file is shorter). */
  head: Buffer;
  /** Where it is stored; null when it was not (refused while it arrived, or the write failed). */
  key: string | null;
  /** Decoded bytes written. */
  bytes: number;
}

export const DEFAULT_MEDIA_POLICY: Readonly<MediaPolicy> = Object.freeze({
  allowPrivate: false,
  timeoutMs: 8_000,
  // Enough for a moov box at the front of any sane clip, or the whole of a short audio clip when
  // the server ignores Range; far below what a submit may hold in memory.
  maxBytesPerRef: 8 * 1024 * 1024,
  maxRedirects: 3,
  concurrency: 8,
  snapshot: false,
  // Reference clips are seconds long; 50 MiB holds minutes of HD video.
  maxSnapshotBytes: 50 * 1024 * 1024,
});

/** Inline (data URI) files are at most 10 MB each. */
export const MAX_INLINE_BYTES = 10 * 1024 * 1024;

/**
 * The policy for a deployment. Private URLs are a development convenience that would let any
 * client make the service fetch from its own network, so production refuses the switch outright
 * (packages/config refuses it too; this keeps the library safe when wired up by hand).
 */
export function mediaPolicyFromConfig(cfg: {
  NODE_ENV: string;
  ALLOW_PRIVATE_MEDIA_URLS: boolean;
}, overrides: Partial<MediaPolicy> = {}): MediaPolicy {
  const policy: MediaPolicy = { ...DEFAULT_MEDIA_POLICY, allowPrivate: cfg.ALLOW_PRIVATE_MEDIA_URLS, ...overrides };
  if (policy.allowPrivate && cfg.NODE_ENV === 'production') {
    throw new Error('ALLOW_PRIVATE_MEDIA_URLS is for development and tests only; refused in production');
  }
  return policy;
}
