import type { Services } from '../api/context.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import type { Resource } from '../api/resource.ts';
import type { RouteModule } from '../api/extra-routes.ts';
import type { TemplateFacet } from './prompts.ts';

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
  /** What the process sees beyond the run's private directory (docs/security.md, "Runs are isolated"). */
  sandbox?: SandboxMounts;
}

/** Directories of the service host a run's process sees; everything else of the service stays hidden. */
export interface SandboxMounts {
  readable?: string[];
  writable?: string[];
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

export type Runner = (job: UnifiedJobRow, run: RunContext) => Promise<RunOutcome>;

/**
 * A run kind (job, ad hoc command, project update, inventory update): everything the core needs to
 * know about it. Each kind's folder under src/run-kinds/ exports one; the composition root lists them.
 */
export interface RunKind {
  /** The value of unified_jobs.kind, also the name of its resource. */
  name: string;
  /** Its declaration: the resource its runs are read (and for some kinds created) through. */
  resource: Resource;
  run: Runner;
  /** Table of the template kind this run kind belongs to, whose status follows its runs. */
  templateTable?: string;
  /** Its templates' table and the prompts a launch of one may choose, which every trigger reads through acceptPrompts. */
  template?: TemplateFacet;
  /** False for templates that are not sources (job templates have no last_update_failed / last_updated). */
  templateIsSource?: boolean;
  /** Seconds allowed when the run has no timeout of its own (a setting name). */
  defaultTimeoutSetting?: string;
  /** False for runs that send no started/success/error notifications of their own (workflow approvals). */
  runNotifications?: false;
  /** Runs inside the transaction that stores the final status (computed fields of the inventory...). */
  afterFinish?(tx: Queryable, job: UnifiedJobRow): Promise<void>;
  /** Endpoints the kind adds: its run endpoints (stdout, events, cancel) and how it is launched. */
  routes: readonly RouteModule[];
  /** False for kinds whose runs take no capacity and run no process (workflow jobs, approvals): the task manager does not place them. */
  placed?: boolean;
}

/** What creating a run needs to know of its kind: its name and the table of its templates. */
export type RunKindRef = Pick<RunKind, 'name' | 'templateTable'>;

/** The run kinds of a service, by name. */
export class RunKinds {
  private readonly byName: ReadonlyMap<string, RunKind>;

  constructor(readonly all: readonly RunKind[]) {
    this.byName = new Map(all.map((k) => [k.name, k]));
  }

  get(name: string): RunKind {
    const kind = this.byName.get(name);
    if (!kind) throw new Error(`unknown run kind "${name}"`);
    return kind;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The kinds the task manager places on instances. */
  placedNames(): string[] {
    return this.all.filter((k) => k.placed !== false).map((k) => k.name);
  }
}
