/**
 * One process of the Jinja sandbox (sandbox-process.js): a small heap, one render at a time. A render
 * past its time ends the process, as does a template that exhausts the heap; the pool starts another
 * when there is work for it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';

export class SandboxError extends Error {}

/** What the process answers: a template's text, or the outcomes of condition sets. */
export interface SandboxAnswer {
  text?: string;
  results?: { matched: boolean; error?: string }[][];
}

/** A message for the process, with what to do with its answer. */
export interface SandboxJob {
  message: Record<string, unknown>;
  timeoutMs: number;
  resolve(answer: SandboxAnswer): void;
  reject(err: SandboxError): void;
}

/** What the pool hears from a worker. */
export interface WorkerEvents {
  /** Ready for a job: started, or done with one (it may have been stopped). */
  available(): void;
  /** The process could not start: the pool fails a waiting job rather than letting every one wait for ever. */
  startFailed(message: string): void;
}

const STARTUP_TIMEOUT_MS = 30_000;

export class SandboxWorker {
  private child: ChildProcess | null = null;
  /** The child has loaded: a render's time starts only then, not while a busy machine starts the process. */
  private ready = false;
  /** While the child starts (it also keeps the event loop alive: the child does not). */
  private starting: NodeJS.Timeout | null = null;
  private current: { job: SandboxJob; id: number; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  constructor(private events: WorkerEvents) {}

  /** No process, not even one starting. */
  get stopped(): boolean {
    return this.child === null;
  }

  get idle(): boolean {
    return this.ready && this.current === null;
  }

  get busy(): boolean {
    return this.current !== null;
  }

  /** Starts the process; `available` follows once it has loaded. */
  start(): void {
    if (this.child) return;
    const child = fork(new URL('./sandbox-process.js', import.meta.url), [], {
      // The process inherits none of the service's loaders or flags, and has a small heap.
      execArgv: ['--max-old-space-size=64', '--max-semi-space-size=8'],
      env: {},
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    child.unref();
    child.channel?.unref();
    // Renders yield the CPU to the service's own thread: a busy pool never slows the answers of requests.
    if (child.pid) lowerPriority(child.pid);
    child.on('message', (answer: SandboxAnswer & { id: number; ready?: boolean; error?: string }) => {
      if (this.child !== child) return;
      if (answer.ready) {
        this.ready = true;
        this.clearStarting();
        this.events.available();
        return;
      }
      const current = this.current;
      if (!current || current.id !== answer.id) return;
      clearTimeout(current.timer);
      this.current = null;
      if (answer.error !== undefined) current.job.reject(new SandboxError(`Template error: ${answer.error}`));
      else current.job.resolve(answer);
      this.events.available();
    });
    child.on('error', (err) => {
      if (this.child === child) this.stop(`could not be rendered (${err.message})`);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.stop(signal === 'SIGABRT' || code === 134 ? 'used too much memory and was stopped' : 'stopped unexpectedly');
    });
    this.child = child;
    this.ready = false;
    this.starting = setTimeout(() => this.stop(`sandbox did not start within ${STARTUP_TIMEOUT_MS} ms`), STARTUP_TIMEOUT_MS);
  }

  /** Renders `job` (the worker must be idle); its time starts now. */
  run(job: SandboxJob): void {
    const id = this.nextId++;
    const timer = setTimeout(() => this.stop(`took longer than ${job.timeoutMs} ms and was stopped`), job.timeoutMs);
    this.current = { job, id, timer };
    this.child!.send({ id, ...job.message }, (err) => {
      if (err && this.current?.id === id) this.stop(`context could not be passed to the template (${err.message})`);
    });
  }

  /** Ends the process; the render in progress fails with `message`, and without one a start that failed is reported. */
  stop(message: string, quiet = false): void {
    const child = this.child;
    const wasReady = this.ready;
    const current = this.current;
    this.clearStarting();
    this.child = null;
    this.ready = false;
    this.current = null;
    child?.kill('SIGKILL');
    if (current) {
      clearTimeout(current.timer);
      current.job.reject(new SandboxError(`Template ${message}.`));
    }
    if (quiet) return;
    if (!current && !wasReady && child) this.events.startFailed(`Template ${message}.`);
    else this.events.available();
  }

  private clearStarting(): void {
    if (this.starting) clearTimeout(this.starting);
    this.starting = null;
  }
}

const RENDER_NICENESS = 10;

function lowerPriority(pid: number): void {
  try {
    setPriority(pid, RENDER_NICENESS);
  } catch {
    // Not allowed here: renders keep the service's priority.
  }
}
