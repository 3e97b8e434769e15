import path from 'node:path';
import type { Config } from '@mediagen/config';
import { FsStorageDriver } from './fs-driver';
import type { StorageDriver } from './storage-driver';

export * from './storage-driver';
export * from './keys';
export * from './public-url';
export { FsStorageDriver } from './fs-driver';

/**
 * The storage driver of this deployment. Files live under DATA_DIR/files; an S3-compatible driver
 * would be chosen here by configuration when gateways and workers do not share a disk.
 */
export function createStorage(config: Pick<Config, 'DATA_DIR'>): StorageDriver {
  return new FsStorageDriver(path.join(config.DATA_DIR, 'files'));
}
