// The `callback_url` body field (extension, docs/api.md): where the task's completion or failure is
// POSTed, signed (Standard Webhooks). Same literal-host rules as reference URLs (https only, no
// private host names unless ALLOW_LOCAL_WEBHOOKS, on by default in development); the sender checks
// resolved addresses again and pins the connection to them before each delivery. A refusal says
// what allows a local receiver, since that is what a developer trying one needs to know.
import { isPrivateHostname } from './private-hosts';
import { fail } from './param-checks';
import type { ValidateOptions } from './types';

export const MAX_CALLBACK_URL_CHARS = 2048;
const LOCAL_HINT =
  ' (http:// and local addresses such as http://127.0.0.1:8080/hook are accepted in development: NODE_ENV=development, which `npm start` sets, or ALLOW_LOCAL_WEBHOOKS=true; never in production)';

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
  const local = opts.allowLocalWebhooks ?? opts.allowPrivateMediaUrls;
  const allowed = local ? ['https:', 'http:'] : ['https:'];
  if (!url.hostname || !['https:', 'http:'].includes(url.protocol)) fail(path, 'must be an https URL');
  if (!allowed.includes(url.protocol)) fail(path, `must be an https URL${LOCAL_HINT}`);
  if (url.username || url.password) fail(path, 'URL must not contain a user name or password');
  if (!local && isPrivateHostname(url.hostname)) fail(path, `URL must point at a public internet host${LOCAL_HINT}`);
  return url.toString();
}
