import type { Config } from '@mediagen/config';

/** The URL clients fetch a stored file from; the gateway serves /files/<key>. */
export function publicFileUrl(config: Pick<Config, 'PUBLIC_BASE_URL'>, key: string): string {
  return `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/files/${key}`;
}
