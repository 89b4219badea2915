/**
 * The sandbox processes renders share, and the order organizations are served in. Each render is for an
 * organization (null: the service's own) and waits in that organization's queue; a free process takes
 * the next render of the organization with the fewest renders in progress, the one served least
 * recently among equals, so organizations take turns whatever each has queued. No organization holds
 * every process: with two or more, one is always left for the others, so a trivial condition does not
 * wait behind another organization's templates that run to their time limit. A process starts when
 * work first needs it and is replaced when a render past its time (or heap) ends it.
 */
import { availableParallelism } from 'node:os';
import { SandboxError, SandboxWorker, type SandboxAnswer, type SandboxJob } from './sandbox-worker.ts';

/** Two processes, more with more cores (up to four): enough to keep one free while another organization's renders run long. */
export const DEFAULT_PROCESSES = Math.min(4, Math.max(2, availableParallelism()));
/** Renders one organization may have waiting before more are refused. */
export const MAX_WAITING_PER_ORGANIZATION = 50;

export interface SandboxPoolOptions {
  processes?: number;
  maxWaitingPerOrganization?: number;
}

/** How a render is queued. */
export interface QueueRequest {
  organization: number | null;
  /**
   * The service's own work (notifications, workflow conditions, event evaluation), bounded by the
   * batches of its loops: queued past the cap rather than refused, as a refusal would send a
   * notification without its text, take a workflow's other branch, or leave an event unmatched.
   */
  serviceWork?: boolean;
}

interface OrganizationQueue {
  organization: number | null;
  waiting: SandboxJob[];
  running: number;
  /** When the organization last got a process (a count of dispatches): the smallest goes first among equals. */
  lastServed: number;
}

export class SandboxPool {
  private readonly workers: SandboxWorker[];
  private readonly maxWaiting: number;
  /** Most renders of one organization in progress at once. */
  private readonly maxRunning: number;
  private readonly queues = new Map<number | null, OrganizationQueue>();
  private dispatches = 0;
  private closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    const processes = Math.max(1, options.processes ?? DEFAULT_PROCESSES);
    this.maxWaiting = options.maxWaitingPerOrganization ?? MAX_WAITING_PER_ORGANIZATION;
    this.maxRunning = Math.max(1, processes - 1);
    this.workers = Array.from({ length: processes }, () => {
      const worker: SandboxWorker = new SandboxWorker({
        available: () => {
          // A process a render ended is replaced at once: it was in use, and the next render should not wait for a start.
          if (worker.stopped && !this.closed) worker.start();
          this.pump();
        },
        startFailed: (message) => this.startFailed(message),
      });
      return worker;
    });
  }

  /** Sends `message` to a process when the organization's turn comes; rejects at once when it has too many waiting. */
  send(message: Record<string, unknown>, timeoutMs: number, request: QueueRequest): Promise<SandboxAnswer> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new SandboxError('Template not rendered: the sandbox was closed.'));
      let queue = this.queues.get(request.organization);
      if (!queue) {
        queue = { organization: request.organization, waiting: [], running: 0, lastServed: 0 };
        this.queues.set(request.organization, queue);
      }
      if (queue.waiting.length >= this.maxWaiting && !request.serviceWork) {
        return reject(new SandboxError(`Template not rendered: ${this.maxWaiting} templates of this organization are already waiting for the sandbox; try again later.`));
      }
      queue.waiting.push({ message, timeoutMs, resolve, reject });
      this.pump();
    });
  }

  /** Ends every process and fails what waits (tests end their own pools so). */
  close(): void {
    this.closed = true;
    for (const queue of this.queues.values()) {
      for (const job of queue.waiting.splice(0)) job.reject(new SandboxError('Template not rendered: the sandbox was closed.'));
    }
    for (const worker of this.workers) worker.stop('was stopped: the sandbox was closed', true);
    this.queues.clear();
  }

  /** Gives free processes the next renders in turn, and starts processes for what still waits. */
  private pump(): void {
    for (const worker of this.workers) {
      if (!worker.idle) continue;
      const queue = this.nextQueue();
      if (!queue) break;
      this.dispatch(worker, queue);
    }
    // What is left waits for processes that are starting, or that nothing has started yet.
    let unstarted = this.runnableCount() - this.workers.filter((w) => !w.stopped && !w.busy).length;
    for (const worker of this.workers) {
      if (unstarted <= 0 || this.closed) break;
      if (!worker.stopped) continue;
      worker.start();
      unstarted--;
    }
  }

  private dispatch(worker: SandboxWorker, queue: OrganizationQueue): void {
    const job = queue.waiting.shift()!;
    queue.running++;
    queue.lastServed = ++this.dispatches;
    const done = () => {
      queue.running--;
      this.forget(queue);
    };
    worker.run({
      ...job,
      resolve: (answer) => {
        done();
        job.resolve(answer);
      },
      reject: (err) => {
        done();
        job.reject(err);
      },
    });
  }

  /** The queue whose turn it is: renders waiting, fewer than maxRunning in progress, the fewest in progress, then served least recently. */
  private nextQueue(): OrganizationQueue | null {
    let next: OrganizationQueue | null = null;
    for (const queue of this.queues.values()) {
      if (!queue.waiting.length || queue.running >= this.maxRunning) continue;
      if (!next || queue.running < next.running || (queue.running === next.running && queue.lastServed < next.lastServed)) next = queue;
    }
    return next;
  }

  /** Renders that a process could take now. */
  private runnableCount(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += Math.max(0, Math.min(queue.waiting.length, this.maxRunning - queue.running));
    return count;
  }

  /** A process that cannot start fails the render next in turn: without it, renders would wait for a process that never comes. */
  private startFailed(message: string): void {
    const queue = this.nextQueue();
    if (queue) {
      queue.waiting.shift()!.reject(new SandboxError(message));
      this.forget(queue);
    }
    this.pump();
  }

  /** An organization with nothing waiting or in progress is dropped (it keeps no turn). */
  private forget(queue: OrganizationQueue): void {
    if (!queue.waiting.length && !queue.running && this.queues.get(queue.organization) === queue) this.queues.delete(queue.organization);
  }
}
