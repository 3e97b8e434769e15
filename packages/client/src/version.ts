// The SDK's version, sent in User-Agent. Kept equal to package.json's by test/e2e/sdk-pack.e2e.test.ts (a built
// bundle cannot read its own manifest from both module systems without a file lookup).
export const VERSION = '1.1.0';
