// The S3 driver and its client, apart from the package's index so that the AWS SDK loads only in a
// process that stores its files on S3 (createStorage requires this file on demand).
export { S3StorageDriver } from './s3-driver';
export type { S3DriverOptions } from './s3-driver';
export { createS3Client } from './s3-client';
export type { S3Settings } from './s3-client';
