// With DATABASE_URL exported (as for `npm start`), the tests' schemas go to a `_test` sibling
// database, never into the development database.
import { testDatabaseOf } from '../src/test-schema';

test('the test database is the _test sibling of DATABASE_URL', () => {
  expect(testDatabaseOf('postgresql://postgres@127.0.0.1:5432/mediagen')).toBe('postgresql://postgres@127.0.0.1:5432/mediagen_test');
  expect(testDatabaseOf('postgresql://u:p@db:6432/app?sslmode=disable&schema=x')).toBe('postgresql://u:p@db:6432/app_test?sslmode=disable');
  expect(testDatabaseOf('postgresql://postgres@127.0.0.1:5432/mediagen_test')).toBe('postgresql://postgres@127.0.0.1:5432/mediagen_test');
  expect(testDatabaseOf('postgresql://postgres@127.0.0.1:5432/test')).toBe('postgresql://postgres@127.0.0.1:5432/test');
});
