// Storage keys come from our own code (results/<taskId>/0.png) but are also read back from URL
// paths that anyone can send, so every driver validates them before touching the backend.

export class InvalidKeyError extends Error {
  constructor(key: string) {
    super(`invalid storage key: ${JSON.stringify(key.slice(0, 200))}`);
    this.name = 'InvalidKeyError';
  }
}

// Segments start with a letter or digit: no `.`/`..`, no dotfiles (the driver's metadata sidecars
// are dotfiles, so they can never be addressed as keys), no empty segments, no backslashes.
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_KEY_LENGTH = 512;
const MAX_SEGMENTS = 8;

export function isValidKey(key: string): boolean {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  const parts = key.split('/');
  return parts.length <= MAX_SEGMENTS && parts.every((p) => SEGMENT.test(p));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new InvalidKeyError(key);
}

const EXT_BY_TYPE: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
};
const TYPE_BY_EXT = new Map(Object.entries(EXT_BY_TYPE).map(([type, ext]) => [ext, type]));

/**
 * The content type a file name's extension stands for (the inverse of extensionFor), or undefined
 * for an extension we do not map. The filesystem driver keeps no type sidecar for a file whose
 * name already says its type.
 */
export function typeOfName(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = name.slice(dot + 1).toLowerCase();
  return TYPE_BY_EXT.get(ext);
}

/** File extension for a content type; `bin` for types we do not know. */
export function extensionFor(contentType: string): string {
  return EXT_BY_TYPE[contentType.split(';')[0].trim().toLowerCase()] ?? 'bin';
}

/** Where the worker keeps result file `index` of a task. Stable, so a retried download overwrites. */
export const resultKey = (taskId: string, index: number, contentType: string): string =>
  `results/${taskId}/${index}.${extensionFor(contentType)}`;

/**
 * The storage key of one of a task's result URLs (`.../files/results/<taskId>/<n>.<ext>`), read
 * from the URL's path so a later change of PUBLIC_BASE_URL does not matter; null when the URL is
 * not a result of this task (the retention job then deletes nothing for it).
 */
export function resultKeyOfUrl(taskId: string, url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const at = path.lastIndexOf('/files/results/');
  if (at < 0) return null;
  const key = decodeURIComponent(path.slice(at + '/files/'.length));
  return key.startsWith(`results/${taskId}/`) && isValidKey(key) ? key : null;
}
