import pg from 'pg';
import type { Database, Queryable, Row } from './database.ts';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export interface ServerConnection {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  max?: number;
}

/** A PostgreSQL server reached through a connection pool. */
export class ServerDatabase implements Database {
  readonly kind = 'server' as const;
  private readonly pool: pg.Pool;

  constructor(connection: ServerConnection) {
    this.pool = new pg.Pool({ ...connection, max: connection.max ?? 10 });
    this.pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on next use.
    });
  }

  async query<T extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await this.pool.query<T>(text, params as unknown[]);
    return result.rows;
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: async <R extends Row>(text: string, params: readonly unknown[] = []) => (await client.query<R>(text, params as unknown[])).rows,
        exec: async (script: string) => void (await client.query(script)),
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
