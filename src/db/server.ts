import pg from 'pg';
import { quoteChannel, type Database, type NotificationHandler, type PoolStats, type Queryable, type Row, type TransactionOptions } from './database.ts';
import { StatementNames } from './statement-names.ts';
import { ChannelHandlers } from './channel-handlers.ts';

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
  private readonly listener: NotificationListener;
  private readonly names = new StatementNames();
  private statements = 0;

  constructor(connection: ServerConnection) {
    this.listener = new NotificationListener(connection);
    this.pool = new pg.Pool({ ...connection, max: connection.max ?? 10 });
    this.pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on next use.
    });
  }

  async query<T extends object = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return (await this.pool.query(this.statement(text, params))).rows as T[];
    } catch (err) {
      // Outside a transaction nothing was done: the statement may go again, now unnamed.
      if (!this.names.staleAfterSchemaChange(text, err)) throw err;
      return (await this.pool.query(this.statement(text, params))).rows as T[];
    }
  }

  private statement(text: string, params: readonly unknown[]): pg.QueryConfig {
    this.statements++;
    return { text, values: params as unknown[], name: params.length ? this.names.nameFor(text) : undefined };
  }

  queryWithTimeout<T extends object = Row>(text: string, params: readonly unknown[], timeoutMs: number): Promise<T[]> {
    // In a transaction of its own, so that the timeout (set for this transaction only) stops this
    // statement alone, and a stopped statement gives its connection back.
    return this.transaction(async (tx) => {
      await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [`${Math.round(timeoutMs)}ms`]);
      return tx.query<T>(text, params);
    });
  }

  queryMany(statements: readonly string[]): Promise<Row[][]> {
    this.statements += statements.length;
    return queryMany((text) => this.pool.query(text), statements);
  }

  async exec(script: string): Promise<void> {
    this.statements++;
    await this.pool.query(script);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    const client = await this.pool.connect();
    try {
      this.statements++;
      await client.query('BEGIN');
      const result = await fn({
        query: async <R extends object>(text: string, params: readonly unknown[] = []) => {
          try {
            return (await client.query(this.statement(text, params))).rows as R[];
          } catch (err) {
            this.names.staleAfterSchemaChange(text, err);
            throw err;
          }
        },
        queryMany: (statements) => {
          this.statements += statements.length;
          return queryMany((text) => client.query(text), statements);
        },
        exec: async (script: string) => {
          this.statements++;
          await client.query(script);
        },
      });
      this.statements++;
      await client.query('COMMIT');
      return result;
    } catch (err) {
      this.statements++;
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  poolStats(): PoolStats {
    const { totalCount, idleCount, waitingCount, options } = this.pool;
    return { inUse: totalCount - idleCount, idle: idleCount, max: options.max ?? 10, waiting: waitingCount, statements: this.statements };
  }

  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    return this.listener.listen(channel, handler);
  }

  async close(): Promise<void> {
    await this.listener.close();
    await this.pool.end();
  }
}

/** Statements without parameters go as one simple query: pg answers a result for each (one alone when there is one). */
async function queryMany(run: (text: string) => Promise<unknown>, statements: readonly string[]): Promise<Row[][]> {
  if (!statements.length) return [];
  const results = await run(statements.join(';\n'));
  return (Array.isArray(results) ? results : [results]).map((r: pg.QueryResult) => r.rows);
}

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/**
 * LISTEN needs a connection of its own (pooled connections change hands). This one is opened on
 * the first listen, and reopened with growing delays when it is lost, listening again on every
 * channel; notifications sent while it was down are lost.
 */
class NotificationListener {
  private readonly handlers = new ChannelHandlers();
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private retryDelay = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly connection: ServerConnection) {}

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the database is closed');
    const first = this.handlers.add(channel, handler);
    const stop = async () => {
      if (!this.handlers.remove(channel, handler)) return;
      await this.client?.query(`UNLISTEN ${quoteChannel(channel)}`).catch(() => undefined);
    };
    try {
      const client = await this.connect();
      if (first) await client.query(`LISTEN ${quoteChannel(channel)}`);
    } catch (err) {
      await stop();
      throw err;
    }
    return stop;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client(this.connection);
    client.on('notification', (message) => {
      this.handlers.deliver(message.channel, message.payload ?? '');
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    for (const channel of this.handlers.channels()) await client.query(`LISTEN ${quoteChannel(channel)}`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('the database is closed');
    }
    this.client = client;
    this.retryDelay = RECONNECT_MIN_MS;
    return client;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer || !this.handlers.size) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch(() => {
        this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
        this.scheduleReconnect();
      });
    }, this.retryDelay);
    this.retryTimer.unref();
  }
}
