// The S3 client of this deployment, built from configuration. Kept apart from the driver so tests
// and tools can hand the driver a client of their own.
import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '@mediagen/config';

export type S3Settings = Pick<
  Config,
  'S3_REGION' | 'S3_ENDPOINT' | 'S3_FORCE_PATH_STYLE' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'
>;

export function createS3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.S3_REGION,
    endpoint: s.S3_ENDPOINT,
    forcePathStyle: s.S3_FORCE_PATH_STYLE,
    // Without explicit keys the SDK's default chain applies (AWS_* env, profile, container/instance role).
    credentials:
      s.S3_ACCESS_KEY_ID && s.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: s.S3_ACCESS_KEY_ID, secretAccessKey: s.S3_SECRET_ACCESS_KEY }
        : undefined,
    // Recent SDKs add CRC32 checksums to every upload by default; many S3-compatible servers reject
    // or mishandle them. Against a custom endpoint, send checksums only where the API requires them.
    ...(s.S3_ENDPOINT ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
    requestHandler: {
      // Fail fast on an unreachable endpoint, and drop a request whose socket stays silent for a
      // minute: a stalled S3 answer must not hold a pooled socket for good. A slow
      // client pacing a download (backpressure) keeps the socket busy; one that stalls is cut by
      // the files route's own 30 s inactivity timeout first, which releases the S3 socket.
      connectionTimeout: 5_000,
      requestTimeout: 60_000,
      // The SDK's default pool is 50 sockets; every file the gateway is streaming holds one for the
      // whole download, so a few slow video downloads must not starve stats and uploads.
      httpAgent: { maxSockets: 256 },
      httpsAgent: { maxSockets: 256 },
    },
  });
}
