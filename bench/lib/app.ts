import { createTestApp, type TestApp, type TestAppOptions } from '../../test/helpers/app.ts';
import type { DbChoice } from './options.ts';

/** A fresh service on the chosen database (PostgreSQL at POSTGRES_HOST, default 127.0.0.1), made as the tests make theirs. */
export async function appOn(choice: DbChoice, options: TestAppOptions = {}): Promise<TestApp> {
  const pgHost = process.env.POSTGRES_HOST;
  if (choice === 'postgres') process.env.POSTGRES_HOST = pgHost || '127.0.0.1';
  else delete process.env.POSTGRES_HOST;
  try {
    return await createTestApp({}, options);
  } finally {
    if (pgHost === undefined) delete process.env.POSTGRES_HOST;
    else process.env.POSTGRES_HOST = pgHost;
  }
}
