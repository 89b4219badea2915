import type { Services } from '../api/context.ts';
import type { Database, Queryable, Row } from '../db/database.ts';

export type FinalStatus = 'successful' | 'failed' | 'error' | 'canceled';

export interface RunOutcome {
  status: 'successful' | 'failed' | 'error';
  explanation?: string;
  /** Further unified_jobs columns to store with the final status (scm_revision...). */
  updates?: Record<string, unknown>;
}

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Values replaced by $encrypted$ wherever they would appear in the output. */
  secrets?: string[];
  /** Answer standard output instead of showing it (standard error is still shown). */
  captureStdout?: boolean;
  /** Text written to the process's standard input. */
  stdin?: string;
  /** Takes every output line (scrubbed) instead of showing it: for processes that print events. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Told the process id (also its process group's) once it starts. */
  onSpawn?: (pid: number) => void;
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  /** Standard error as shown (secrets scrubbed), for reporting why a command failed. */
  stderr: string;
}

/** What a runner gets for one run. */
export interface RunContext {
  db: Database;
  services: Services;
  /** Aborted on cancel or timeout; running processes are stopped by it. */
  signal: AbortSignal;
  /** A fresh directory only the service can read, removed after the run whatever happens. */
  privateDir: string;
  /** The run's time limit in seconds, 0 for none. */
  timeoutSeconds: number;
  /** Appends text to the run's output (one event per line). */
  output(text: string): Promise<void>;
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
  /** The next event's counter less one and its first line, for runs that store events of their own. */
  position(): Promise<{ counter: number; line: number }>;
  /** Moves the run's own output past events stored by another writer. */
  advance(counter: number, line: number): void;
}

export type Runner = (job: Row, run: RunContext) => Promise<RunOutcome>;

export interface RunnerOptions {
  /** Table of the template kind this run kind belongs to, whose status follows its runs. */
  templateTable?: string;
  /** False for templates that are not sources (job templates have no last_update_failed / last_updated). */
  templateIsSource?: boolean;
  /** Seconds allowed when the run has no timeout of its own (a setting name). */
  defaultTimeoutSetting?: string;
  /** Runs inside the transaction that stores the final status (computed fields of the inventory...). */
  afterFinish?(tx: Queryable, job: Row): Promise<void>;
}

interface Registration extends RunnerOptions {
  run: Runner;
}

const runners = new Map<string, Registration>();

export function registerRunner(kind: string, run: Runner, options: RunnerOptions = {}): void {
  runners.set(kind, { run, ...options });
}

export function runnerFor(kind: string): Registration | undefined {
  return runners.get(kind);
}

export function registeredKinds(): string[] {
  return [...runners.keys()];
}
