import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { restrictTree } from '../config/file-modes.ts';
import { blankClusterImage, keepBlankClusterImage } from './blank-cluster.ts';
import { quoteChannel, type Database, type NotificationHandler, type PoolStats, type Queryable, type Row, type TransactionOptions } from './database.ts';
import { EmbeddedThread, type ThreadRequest } from './embedded-thread.ts';
import { unpackImage } from './unpack-image.ts';
import { ChannelHandlers } from './channel-handlers.ts';

/** How often the write-ahead log since the last checkpoint is measured, and past what size a checkpoint is made. */
const CHECKPOINT_CHECK_MS = 30_000;
const CHECKPOINT_AFTER_BYTES = 32 * 1024 * 1024;

/**
 * PGlite: PostgreSQL compiled to WebAssembly, one connection, data in a local directory. It runs in
 * a worker thread (embedded-thread.ts), so a long statement holds up the statements queued behind
 * it, never the service's own thread. One statement or transaction runs at a time: each takes its
 * turn, as PGlite itself orders its callers. PGlite cannot cancel a statement (it ignores
 * statement_timeout), so one past its timeout ends the thread, and a new thread opens the data
 * directory again (PostgreSQL's crash recovery, about a second) before the next turn.
 */
interface Turn {
  urgent: boolean;
  run(): Promise<void>;
}

export class EmbeddedDatabase implements Database {
  readonly kind = 'embedded' as const;
  private thread: EmbeddedThread | null = null;
  private opening: Promise<EmbeddedThread> | null = null;
  /** Work waiting for its turn, urgent work first; `busy` while one runs. */
  private readonly waiting: Turn[] = [];
  private busy = false;
  private statements = 0;
  private readonly handlers = new ChannelHandlers();
  private closed = false;
  private readonly checkpoints: NodeJS.Timeout;

  /** `temporary`: the data directory was made for this database (one opened from an image alone) and goes with it. */
  private constructor(
    private readonly dataDir: string,
    private readonly temporary: boolean,
  ) {
    this.checkpoints = setInterval(() => void this.checkpointIfDue().catch(() => undefined), CHECKPOINT_CHECK_MS);
    this.checkpoints.unref();
  }

  /**
   * The database in `dataDir`, or, without one, in a temporary directory removed on close (a
   * directory, not memory, so that the database outlives a restart of its thread).
   */
  static async open(options: { dataDir?: string; loadDataDir?: Blob | File }): Promise<EmbeddedDatabase> {
    const temporary = !options.dataDir;
    const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'drover-pglite-')));
    // A new cluster is a copy of a blank one made before, as initdb in WebAssembly takes many seconds.
    const image = options.loadDataDir ? null : await blankClusterImage(dataDir);
    const load = options.loadDataDir ?? image?.blob ?? undefined;
    const db = new EmbeddedDatabase(dataDir, temporary);
    try {
      const unpacked = load ? await unpackImage(load, dataDir) : false;
      db.thread = await db.startThread(load && !unpacked ? await load.arrayBuffer() : undefined);
      if (image && !image.blob) await keepBlankClusterImage(image, () => db.dump());
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
    return db;
  }

  query<T extends object = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    this.statements++;
    return this.inTurn((thread) => thread.request<T[]>({ op: 'query', text, params }));
  }

  queryWithTimeout<T extends object = Row>(text: string, params: readonly unknown[], timeoutMs: number): Promise<T[]> {
    this.statements++;
    return this.inTurn((thread) => thread.request<T[]>({ op: 'query', text, params }, timeoutMs));
  }

  async queryMany(statements: readonly string[]): Promise<Row[][]> {
    this.statements += statements.length;
    return statements.length ? this.inTurn((thread) => thread.request<Row[][]>({ op: 'queryMany', text: statements.join(';\n') })) : [];
  }

  async exec(script: string): Promise<void> {
    this.statements++;
    await this.inTurn((thread) => thread.request({ op: 'exec', text: script }));
  }

  /** As PGlite's own transactions: no other statement runs between BEGIN and COMMIT. An urgent one goes before those waiting. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.inTurn(async (thread) => {
      let open = true;
      const send = async <R>(request: ThreadRequest) => {
        if (!open) throw new Error('Transaction is closed');
        this.statements++;
        return thread.request<R>(request);
      };
      this.statements += 2; // BEGIN, and COMMIT or ROLLBACK
      await thread.request({ op: 'exec', text: 'BEGIN' });
      try {
        const result = await fn({
          query: <R extends object>(text: string, params: readonly unknown[] = []) => send<R[]>({ op: 'query', text, params }),
          queryMany: async (statements) => (statements.length ? send<Row[][]>({ op: 'queryMany', text: statements.join(';\n') }) : []),
          exec: async (script) => void (await send({ op: 'exec', text: script })),
        });
        open = false;
        await thread.request({ op: 'commit' });
        return result;
      } catch (err) {
        if (open && thread.alive) {
          open = false;
          await thread.request({ op: 'exec', text: 'ROLLBACK' }).catch(() => undefined);
        }
        throw err;
      }
    }, options.urgent === true);
  }

  /** One connection, PGlite's: in use while a statement or transaction has its turn. */
  poolStats(): PoolStats {
    return { inUse: this.busy ? 1 : 0, idle: this.busy ? 0 : 1, max: 1, waiting: this.waiting.length, statements: this.statements };
  }

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const first = this.handlers.add(channel, handler);
    const stop = async () => {
      if (!this.handlers.remove(channel, handler)) return;
      if (!this.closed) await this.exec(`UNLISTEN ${quoteChannel(channel)}`);
    };
    if (first) {
      try {
        await this.exec(`LISTEN ${quoteChannel(channel)}`);
      } catch (err) {
        await stop().catch(() => undefined);
        throw err;
      }
    }
    return stop;
  }

  /** A compressed copy of the whole data directory, loadable with loadDataDir. */
  async dump(): Promise<Blob> {
    return new Blob([await this.inTurn((thread) => thread.request<ArrayBuffer>({ op: 'dump' }))]);
  }

  /** Waits for the statements already sent, then shuts PGlite down cleanly. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.checkpoints);
    await this.enqueue(async () => {
      await this.opening?.catch(() => undefined);
      const thread = this.thread;
      this.thread = null;
      await thread?.close();
      if (this.temporary) await rm(this.dataDir, { recursive: true, force: true });
    }, false);
  }

  /**
   * PostgreSQL in a single process (PGlite) never makes a checkpoint by itself: its write-ahead log
   * would grow until the database is closed, and a restart of the thread would replay all of it
   * (seconds per hundred megabytes). A checkpoint keeps both small.
   */
  private async checkpointIfDue(): Promise<void> {
    if (this.closed) return;
    const [{ pending }] = await this.query<{ pending: number }>(`SELECT (pg_current_wal_insert_lsn() - redo_lsn)::float8 AS pending FROM pg_control_checkpoint()`);
    if (pending >= CHECKPOINT_AFTER_BYTES) await this.exec('CHECKPOINT');
  }

  /** Runs `work` once every statement and transaction sent before it has ended (urgent work: every urgent one). */
  private inTurn<T>(work: (thread: EmbeddedThread) => Promise<T>, urgent = false): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return this.enqueue(async () => work(await this.currentThread()), urgent);
  }

  private enqueue<T>(work: () => Promise<T>, urgent: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const turn: Turn = { urgent, run: () => work().then(resolve, reject) };
      const firstNotUrgent = urgent ? this.waiting.findIndex((t) => !t.urgent) : -1;
      if (firstNotUrgent < 0) this.waiting.push(turn);
      else this.waiting.splice(firstNotUrgent, 0, turn);
      this.next();
    });
  }

  private next(): void {
    if (this.busy) return;
    const turn = this.waiting.shift();
    if (!turn) return;
    this.busy = true;
    void turn.run().finally(() => {
      this.busy = false;
      this.next();
    });
  }

  private async currentThread(): Promise<EmbeddedThread> {
    if (this.thread?.alive) return this.thread;
    this.opening ??= this.reopen().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  /** A new thread on the data directory, once the one that ended no longer runs, listening on every channel again. */
  private async reopen(): Promise<EmbeddedThread> {
    await this.thread?.whenGone();
    const thread = await this.startThread();
    for (const channel of this.handlers.channels()) await thread.request({ op: 'exec', text: `LISTEN ${quoteChannel(channel)}` });
    this.thread = thread;
    return thread;
  }

  private async startThread(loadDataDir?: ArrayBuffer): Promise<EmbeddedThread> {
    const thread = await EmbeddedThread.start({
      dataDir: this.dataDir,
      loadDataDir,
      onNotification: (channel, payload) => {
        this.handlers.deliver(channel, payload);
      },
      // Opened again at once, so that the next statement waits less.
      onLost: () => {
        if (!this.closed) void this.currentThread().catch(() => undefined);
      },
    });
    // PGlite sets modes of its own on some files (those of initdb 0666, pg_internal.init 0644,
    // whatever the umask): the database is for drover's user only.
    await restrictTree(this.dataDir);
    return thread;
  }
}
