// Request-wide limits the spec states, plus the ones the spec leaves "not shown" and we decided
// (docs/models-and-pricing.md). The gateway reads the body and header limits from here too, so a
// change is made in one place.

/** Inline (data URI) files are at most 10 MB each; we read MB as MiB, measured on decoded bytes. */
export const MAX_INLINE_FILE_BYTES = 10 * 1024 * 1024;

/** At most 12 inline files per request; counts media items, images and frames together. */
export const MAX_INLINE_FILES = 12;

/** Request bodies are at most 40 MB (MiB); the gateway's JSON parser answers 413 above it. */
export const MAX_BODY_BYTES = 40 * 1024 * 1024;

/** Spec: maximum prompt length "not shown". We decided 10,000 characters (Unicode code points). */
export const MAX_PROMPT_CHARS = 10_000;

/** The idempotency id, header or client_request_id, 1-255 characters. */
export const IDEMPOTENCY_KEY_MAX = 255;

/**
 * An idempotency id's length in characters (Unicode code points), the one measure for the header
 * and client_request_id alike (not UTF-16 units, not bytes).
 */
export const idempotencyKeyLength = (id: string): number => [...id].length;

/** Upper bound for a reference URL; longer ones are almost always signed links pasted by mistake. */
export const MAX_MEDIA_URL_CHARS = 2048;

/** The `seed` range for video-a-h3. */
export const SEED_MAX = 2_147_483_647;

/** At most 6 reference images per image task. */
export const MAX_IMAGE_TASK_IMAGES = 6;
