import type { Tables } from './tables.ts';

/**
 * A row whose shape the query does not say. Reading it needs a type: name the row type of the
 * query instead (`query<JobTemplateRow>`, `TableRow<'job_templates'>`, or a type of the columns selected).
 */
export type Row = Record<string, unknown>;

/** A row of a resource's table (or view): every one has an integer id. */
export type ResourceRow = Row & { id: number };

/** The row type of a table or view, as generated into src/db/tables.ts from the migrations. */
export type TableRow<Name extends keyof Tables> = Tables[Name];

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  /** The rows of one statement, typed as T (the caller's word for the columns it selects). */
  query<T extends object = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Runs several statements without parameters in one round trip and answers the rows of each.
   * Values are written into the statements, so only numbers (see sqlIntegers), never text.
   */
  queryMany(statements: readonly string[]): Promise<Row[][]>;
  /** Runs a script of several statements without parameters (migrations, test setup). */
  exec(script: string): Promise<void>;
}

export type NotificationHandler = (payload: string) => void;

export interface TransactionOptions {
  /**
   * Short work someone waits for (a workflow look starting the next nodes): the embedded database,
   * which runs one statement or transaction at a time, lets it go before the work already waiting.
   * A server runs transactions side by side and needs no such order.
   */
  urgent?: boolean;
}

/** How the connections of a database stand now (GET /api/v2/metrics/, docs/observability.md#metrics). */
export interface PoolStats {
  /** Connections running a statement or holding a transaction. */
  inUse: number;
  idle: number;
  /** Most connections opened. */
  max: number;
  /** Statements and transactions waiting for a connection (the embedded database: for their turn). */
  waiting: number;
  /** Statements sent since the database was opened (BEGIN and COMMIT included; a script counts once). */
  statements: number;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'server';
  poolStats(): PoolStats;
  /**
   * Runs one statement (outside any transaction) that may take at most `timeoutMs`: a longer one is
   * stopped and fails with PgError.queryCanceled, as under PostgreSQL's statement_timeout.
   */
  queryWithTimeout<T extends object = Row>(text: string, params: readonly unknown[], timeoutMs: number): Promise<T[]>;
  /** Runs fn in one transaction: everything it does is committed together or not at all. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Calls handler with the payload of every NOTIFY on channel (a NOTIFY sent inside a transaction
   * arrives once it commits). Answers a function that stops listening.
   */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Postgres error codes the API turns into client errors. */
export const PgError = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  notNullViolation: '23502',
  invalidRegex: '2201B',
  invalidTextRepresentation: '22P02',
  datetimeOverflow: '22008',
  invalidDatetimeFormat: '22007',
  numericOutOfRange: '22003',
  /** A NUL byte in a text value ("invalid byte sequence for encoding UTF8: 0x00"). */
  characterNotInRepertoire: '22021',
  /** \u0000 in a json value ("unsupported Unicode escape sequence"). */
  untranslatableCharacter: '22P05',
  /** A statement stopped by its statement_timeout (or a cancel request). */
  queryCanceled: '57014',
} as const;

export function pgErrorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** A NOTIFY channel as an SQL identifier for LISTEN and UNLISTEN (pg_notify names it exactly, case included). */
export const quoteChannel = (channel: string): string => `"${channel.replace(/"/g, '""')}"`;

/** Integers as an SQL array literal ('{1,2}'::integer[]) for queryMany; throws on anything else. */
export function sqlIntegers(values: readonly unknown[]): string {
  for (const v of values) if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${String(v)}`);
  return `'{${values.join(',')}}'::integer[]`;
}

/** Whether `db` is the database itself rather than an open transaction. */
export const isDatabase = (db: Queryable): db is Database => 'kind' in db;

/**
 * Runs independent reads together on the database, so that they queue for its connections (on the
 * embedded database, its one connection) once rather than one after another: a page under load
 * waits one turn, not one per read. Inside a transaction, whose one connection takes one statement
 * at a time, they run in order.
 */
export async function readTogether<T extends readonly (() => Promise<unknown>)[]>(db: Queryable, reads: T): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  type Results = { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };
  if (isDatabase(db)) return (await Promise.all(reads.map((read) => read()))) as Results;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as Results;
}

/** The first row a statement answers, or undefined when it answers none. */
export async function one<T extends object = Row>(db: Queryable, text: string, params?: readonly unknown[]): Promise<T | undefined> {
  const [row] = await db.query<T>(text, params);
  return row;
}
