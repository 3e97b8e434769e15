import path from 'node:path';
import type { Config } from '@mediagen/config';
import { FsStorageDriver } from './fs-driver';
import type { S3Settings } from './s3-client';
import type { StorageDriver } from './storage-driver';

export * from './storage-driver';
export * from './keys';
export * from './public-url';
export { FsStorageDriver } from './fs-driver';
// The S3 driver and client are exported from `@mediagen/storage/s3`: the AWS SDK (about 1 MB of
// modules) loads only where it is used, never in a process whose files are on the filesystem.
export type { S3DriverOptions } from './s3-driver';
export type { S3Settings } from './s3-client';

export type StorageSettings = Pick<Config, 'DATA_DIR'> &
  Partial<Pick<Config, 'STORAGE_DRIVER' | 'S3_BUCKET' | 'S3_PREFIX'> & S3Settings>;

/**
 * The storage driver of this deployment, chosen by STORAGE_DRIVER: files under DATA_DIR/files
 * (one machine, or a volume every process mounts), or an S3 bucket shared by gateways and workers
 * on several machines. loadConfig has already refused s3 without a bucket; the check here covers
 * callers that build settings by hand.
 */
export function createStorage(config: StorageSettings): StorageDriver {
  if (config.STORAGE_DRIVER === 's3') {
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required when STORAGE_DRIVER=s3');
    const { createS3Client, S3StorageDriver } = require('./s3') as typeof import('./s3');
    const client = createS3Client({
      S3_REGION: config.S3_REGION ?? 'us-east-1',
      S3_ENDPOINT: config.S3_ENDPOINT,
      S3_FORCE_PATH_STYLE: config.S3_FORCE_PATH_STYLE ?? false,
      S3_ACCESS_KEY_ID: config.S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: config.S3_SECRET_ACCESS_KEY,
    });
    return new S3StorageDriver(client, { bucket: config.S3_BUCKET, prefix: config.S3_PREFIX });
  }
  return new FsStorageDriver(path.join(config.DATA_DIR, 'files'));
}
export * from './signed-url';
