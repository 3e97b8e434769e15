// The `callback_url` body field (extension, docs/api.md): where the task's completion or failure is
// POSTed, signed (Standard Webhooks). Same literal-host rules as reference URLs (https only, no
// private host names unless ALLOW_PRIVATE_MEDIA_URLS); the sender checks resolved addresses again
// and pins the connection to them before each delivery.
import { isPrivateHostname } from './private-hosts';
import { fail } from './param-checks';
import type { ValidateOptions } from './types';

export const MAX_CALLBACK_URL_CHARS = 2048;

/** `path` names the field in the 400 (the admin webhook body calls it `url`). */
export function parseCallbackUrl(value: string | null | undefined, opts: ValidateOptions, path = 'callback_url'): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > MAX_CALLBACK_URL_CHARS) fail(path, `URL is longer than ${MAX_CALLBACK_URL_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(path, 'must be an https URL');
  }
  const allowed = opts.allowPrivateMediaUrls ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol) || !url.hostname) fail(path, 'must be an https URL');
  if (url.username || url.password) fail(path, 'URL must not contain a user name or password');
  if (!opts.allowPrivateMediaUrls && isPrivateHostname(url.hostname)) fail(path, 'URL must point at a public internet host');
  return url.toString();
}
