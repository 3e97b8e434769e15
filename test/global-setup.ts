// Runs once before all test files: makes sure the test database exists. Each file then creates
// its own schema in it (packages/db/src/test-schema.ts) and its own Redis prefix.
import { baseTestDatabaseUrl } from '@mediagen/db/testing';
import { createDatabaseIfMissing } from '../scripts/prepare-db';

export default async function globalSetup(): Promise<void> {
  await createDatabaseIfMissing(baseTestDatabaseUrl());
}
