// Runs once before all test files: makes sure the test database exists. Each file then creates
// its own schema in it (packages/db/src/test-schema.ts) and its own Redis prefix.
import fs from 'node:fs';
import path from 'node:path';
import { baseTestDatabaseUrl } from '@mediagen/db/testing';
import { createDatabaseIfMissing } from '../scripts/prepare-db';

export default async function globalSetup(): Promise<void> {
  // The supported Node (.nvmrc; CI sources scripts/ci/node-lts.sh). An older one still runs the
  // tests, but say so: a result on it is not what CI and the image see.
  const supported = Number(fs.readFileSync(path.join(__dirname, '../.nvmrc'), 'utf8').trim());
  if (Number(process.versions.node.split('.')[0]) < supported)
    process.stderr.write(`\nNote: tests running on Node ${process.version}; the supported Node is ${supported} (source scripts/ci/node-lts.sh)\n`);
  await createDatabaseIfMissing(baseTestDatabaseUrl());
}
