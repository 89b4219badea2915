import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { restrictTree } from '../config/file-modes.ts';
import { blankClusterImage, keepBlankClusterImage } from './blank-cluster.ts';
import type { Database, NotificationHandler, Queryable, Row } from './database.ts';

/** PGlite: PostgreSQL compiled to WebAssembly, one connection, data in a local directory. */
export class EmbeddedDatabase implements Database {
  readonly kind = 'embedded' as const;

  private constructor(private readonly pg: PGlite) {}

  static async open(options: { dataDir?: string; loadDataDir?: Blob | File }): Promise<EmbeddedDatabase> {
    // A new cluster is a copy of a blank one made before, as initdb in WebAssembly takes many seconds.
    const image = options.loadDataDir ? null : await blankClusterImage(options.dataDir);
    // pg_trgm backs the trigram indexes of searches (migration 0002); a database using it needs it loaded.
    const pg = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.loadDataDir ?? image?.blob ?? undefined, extensions: { pg_trgm } });
    if (image && !image.blob) await keepBlankClusterImage(image, () => pg.dumpDataDir('gzip'));
    // PGlite sets modes of its own on some files (those of initdb 0666, pg_internal.init 0644,
    // whatever the umask): the database is for drover's user only.
    if (options.dataDir) await restrictTree(options.dataDir);
    return new EmbeddedDatabase(pg);
  }

  async query<T extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await this.pg.query<T>(text, params as unknown[]);
    return result.rows;
  }

  async queryMany(statements: readonly string[]): Promise<Row[][]> {
    return statements.length ? (await this.pg.exec(statements.join(';\n'))).map((r) => r.rows as Row[]) : [];
  }

  async exec(script: string): Promise<void> {
    await this.pg.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pg.transaction(async (tx) =>
      fn({
        query: async <R extends Row>(text: string, params: readonly unknown[] = []) => (await tx.query<R>(text, params as unknown[])).rows,
        queryMany: async (statements) => (statements.length ? (await tx.exec(statements.join(';\n'))).map((r) => r.rows as Row[]) : []),
        exec: async (script: string) => void (await tx.exec(script)),
      }),
    );
  }

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const unlisten = await this.pg.listen(channel, handler);
    return async () => {
      if (!this.pg.closed) await unlisten();
    };
  }

  /** A compressed copy of the whole data directory, loadable with loadDataDir. */
  dump(): Promise<Blob | File> {
    return this.pg.dumpDataDir('gzip');
  }

  close(): Promise<void> {
    return this.pg.close();
  }
}
