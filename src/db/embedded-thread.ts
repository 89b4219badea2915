import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { PgError } from './database.ts';

export type ThreadRequest =
  | { op: 'query'; text: string; params: readonly unknown[] }
  | { op: 'queryMany' | 'exec'; text: string }
  | { op: 'commit' | 'dump' | 'close' };

type ErrorFields = Record<string, unknown> & { name?: string; message: string };

type WorkerMessage =
  | { ready: true }
  | { failed: ErrorFields }
  | { channel: string; payload: string }
  | { id: number; result: unknown }
  | { id: number; error: ErrorFields };

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | null;
}

export interface ThreadOptions {
  dataDir?: string;
  /** A data directory image (PGlite's dumpDataDir) to start from; moved to the thread. */
  loadDataDir?: ArrayBuffer;
  onNotification(channel: string, payload: string): void;
  /** Called once the thread has ended other than by close() (stopped after a timeout, or crashed). */
  onLost(): void;
}

let compiledPglite: Promise<WebAssembly.Module> | undefined;

/** PGlite's WebAssembly, compiled once in a process and shared by its threads (each would otherwise compile it again). */
function pgliteModule(): Promise<WebAssembly.Module> {
  compiledPglite ??= readFile(new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite'))).then((bytes) => WebAssembly.compile(bytes));
  return compiledPglite;
}

/** An error of the database as the service's code reads it: PostgreSQL's code, detail, constraint... as own properties. */
function rebuiltError(fields: ErrorFields): Error {
  const { name, message, ...rest } = fields;
  const err = Object.assign(new Error(message), rest);
  if (name && name !== 'Error') err.name = name;
  return err;
}

/** What PostgreSQL answers when a statement_timeout stops a statement. */
export function statementTimeoutError(): Error {
  return Object.assign(new Error('canceling statement due to statement timeout'), { severity: 'ERROR', code: PgError.queryCanceled });
}

/**
 * One worker thread running PGlite (embedded-worker.js). Requests are answered by id, in the order
 * PGlite runs them. The thread only keeps the process alive while a request waits for its answer.
 */
export class EmbeddedThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended = false;
  /** Settles once the thread no longer runs: until then its PGlite may still touch the data directory. */
  private gone: Promise<unknown> | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly options: ThreadOptions,
  ) {}

  /** Starts a thread and waits until its PGlite is open. */
  static async start(options: ThreadOptions): Promise<EmbeddedThread> {
    const worker = new Worker(new URL('./embedded-worker.js', import.meta.url), {
      // The thread needs none of the service's loaders or flags.
      execArgv: [],
      workerData: { dataDir: options.dataDir, loadDataDir: options.loadDataDir, pgliteWasmModule: await pgliteModule() },
      transferList: options.loadDataDir ? [options.loadDataDir] : [],
    });
    const thread = new EmbeddedThread(worker, options);
    return new Promise((resolve, reject) => {
      const startFailed = (err: Error) => {
        thread.ended = true;
        reject(err);
      };
      worker.once('error', startFailed);
      worker.once('exit', (code) => startFailed(new Error(`the embedded database did not start (its thread ended with code ${code})`)));
      worker.on('message', function starting(message: WorkerMessage) {
        if ('failed' in message) return startFailed(rebuiltError(message.failed));
        if (!('ready' in message)) return;
        worker.off('message', starting);
        worker.removeAllListeners('error').removeAllListeners('exit');
        thread.listen();
        worker.unref();
        resolve(thread);
      });
    });
  }

  get alive(): boolean {
    return !this.ended;
  }

  /** Waits until an ended thread no longer runs. */
  async whenGone(): Promise<void> {
    await this.gone;
  }

  /**
   * Sends a request and waits for its answer. With `timeoutMs`, a request not answered in time is
   * stopped the only way PGlite allows: the thread is ended (onLost is called) and the request
   * fails as a statement_timeout makes a statement fail on PostgreSQL.
   */
  request<T>(request: ThreadRequest, timeoutMs?: number): Promise<T> {
    if (this.ended) return Promise.reject(new Error('the embedded database thread has ended'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = timeoutMs === undefined ? null : setTimeout(() => this.stop(id), timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      if (this.pending.size === 1) this.worker.ref();
      try {
        this.worker.postMessage({ id, ...request });
      } catch (err) {
        // A value that cannot be copied to the thread (a function in the parameters).
        this.settle(id)?.reject(err as Error);
      }
    });
  }

  /** Closes PGlite (a clean shutdown of the data directory) and ends the thread. */
  async close(): Promise<void> {
    if (this.ended) return;
    await this.request({ op: 'close' });
    this.ended = true;
    this.gone = this.worker.terminate();
    await this.gone;
  }

  private listen(): void {
    this.worker.on('message', (message: WorkerMessage) => {
      if ('channel' in message) return this.options.onNotification(message.channel, message.payload);
      if (!('id' in message)) return;
      const pending = this.settle(message.id);
      if (!pending) return;
      if ('error' in message) pending.reject(rebuiltError(message.error));
      else pending.resolve(message.result);
    });
    let failure: Error | null = null;
    this.worker.on('error', (err) => {
      failure = err;
    });
    this.worker.on('exit', () => {
      if (this.ended) return;
      this.end(new Error(`the embedded database stopped unexpectedly${failure ? ` (${failure.message})` : ''}`), Promise.resolve());
    });
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    if (pending.timer) clearTimeout(pending.timer);
    if (!this.pending.size) this.worker.unref();
    return pending;
  }

  /** Ends the thread in the middle of request `id`, which fails as timed out. */
  private stop(id: number): void {
    this.settle(id)?.reject(statementTimeoutError());
    this.end(new Error('the embedded database was restarted to stop a statement that ran too long'), this.worker.terminate());
  }

  private end(reason: Error, gone: Promise<unknown>): void {
    if (this.ended) return;
    this.ended = true;
    this.gone = gone.catch(() => undefined);
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(reason);
    void this.gone.then(() => this.options.onLost());
  }
}
