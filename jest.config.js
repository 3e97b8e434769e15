/** One jest run covers every workspace; each test file isolates its own DB schema and Redis prefix. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }] },
  // @mediagen/client's manifest points at dist/ (what the packed tarball carries); tests use its sources.
  moduleNameMapper: { '^@mediagen/client$': '<rootDir>/packages/client/src/index.ts' },
  globalSetup: '<rootDir>/test/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
