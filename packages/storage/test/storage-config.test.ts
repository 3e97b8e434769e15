// Choosing the storage driver from the environment: loadConfig validates the S3 settings at start
// with readable messages, and createStorage follows STORAGE_DRIVER.
import { ConfigError, loadConfig } from '@mediagen/config';
import { createStorage, FsStorageDriver } from '../src';
import { S3StorageDriver } from '../src/s3';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // the SDK's Node 22 notice is noise here

describe('storage configuration', () => {
  it('defaults to the filesystem driver under DATA_DIR', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/mg-unused' });
    expect(config.STORAGE_DRIVER).toBe('fs');
    expect(config.S3_REGION).toBe('us-east-1');
    expect(config.S3_FORCE_PATH_STYLE).toBe(false);
    expect(createStorage(config)).toBeInstanceOf(FsStorageDriver);
  });

  it('builds the S3 driver from the S3_* variables', () => {
    const config = loadConfig({
      STORAGE_DRIVER: 's3',
      S3_BUCKET: 'media',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
      S3_PREFIX: 'prod/',
    });
    expect(config).toMatchObject({ S3_BUCKET: 'media', S3_FORCE_PATH_STYLE: true, S3_PREFIX: 'prod/' });
    expect(createStorage(config)).toBeInstanceOf(S3StorageDriver);
  });

  it('refuses s3 without a bucket, half a key pair, and odd values, naming each variable', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('loadConfig accepted the environment');
    };
    expect(problems({ STORAGE_DRIVER: 's3' })).toContain('S3_BUCKET is required when STORAGE_DRIVER=s3');
    expect(problems({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toContain(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together',
    );
    expect(problems({ STORAGE_DRIVER: 'gcs' })).toContain('STORAGE_DRIVER');
    expect(problems({ S3_ENDPOINT: 'not a url' })).toContain('S3_ENDPOINT');
    expect(problems({ S3_PREFIX: '../up' })).toContain('S3_PREFIX');
    expect(problems({ S3_FORCE_PATH_STYLE: 'maybe' })).toContain('S3_FORCE_PATH_STYLE');
  });

  it('treats empty S3 values as unset (compose passes `${VAR:-}` through as "")', () => {
    const config = loadConfig({ STORAGE_DRIVER: 'fs', S3_BUCKET: '', S3_ENDPOINT: '', S3_ACCESS_KEY_ID: '', S3_SECRET_ACCESS_KEY: '', S3_PREFIX: '', S3_FORCE_PATH_STYLE: '' });
    expect(config).toMatchObject({ S3_BUCKET: undefined, S3_ENDPOINT: undefined, S3_ACCESS_KEY_ID: undefined, S3_FORCE_PATH_STYLE: false });
    expect(() => loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: '' })).toThrow('S3_BUCKET is required when STORAGE_DRIVER=s3');
  });

  it('uses the default credential chain when no keys are given', () => {
    const config = loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: 'media' });
    expect(config.S3_ACCESS_KEY_ID).toBeUndefined();
    expect(createStorage(config)).toBeInstanceOf(S3StorageDriver);
  });
});
