/**
 * Jinja for user-written templates and expressions (notification messages, workflow edge conditions,
 * event rule conditions): rendered by @huggingface/jinja, an interpreter with no path to JavaScript
 * internals, in a child process with a small heap, so a runaway loop is stopped by killing the process
 * when its time is up, and a template that allocates without bound ends that process, not the service
 * (a worker thread that runs out of heap can take the whole process down with it).
 */
import { tokenize, parse } from '@huggingface/jinja';
import { fork, type ChildProcess } from 'node:child_process';

export class SandboxError extends Error {}

export interface SandboxLimits {
  /** Wall-clock time one render may take (default 1 s). */
  timeoutMs?: number;
  /** Longest output kept (default 100,000 characters). */
  maxOutputChars?: number;
}

const DEFAULT_TIMEOUT_MS = 1_000;
const STARTUP_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT = 100_000;
export const MAX_SOURCE_LENGTH = 65_536;
// The parser's cost grows with the square of the longest run of blanks: runs are kept short.
const MAX_BLANK_RUN = 1_000;
const LONG_BLANK_RUN = new RegExp(`\\s{${MAX_BLANK_RUN + 1}}`);

/** What makes a source too costly to parse ("is longer than ..."), or null: for every Jinja source users write. */
export function sourceLimitProblem(source: string): string | null {
  if (source.length > MAX_SOURCE_LENGTH) return `is longer than ${MAX_SOURCE_LENGTH} characters`;
  if (LONG_BLANK_RUN.test(source)) return `has more than ${MAX_BLANK_RUN} blank characters in a row`;
  return null;
}

/** Why a template cannot be used, or null: for validating templates when they are saved. */
export function checkSyntax(source: string): string | null {
  const limit = sourceLimitProblem(source);
  if (limit) return `Template ${limit}.`;
  try {
    parse(tokenize(source, {}));
    return null;
  } catch (err) {
    return `Template syntax error: ${err instanceof RangeError ? 'too deeply nested' : (err as Error).message}`;
  }
}

/** Why an expression (what goes between `{{` and `}}`) cannot be used, or null. */
export function checkExpressionSyntax(expression: string): string | null {
  if (!expression.trim()) return 'Expression is empty.';
  const problem = checkSyntax(`{{ ${expression} }}`);
  if (problem) return problem.replace('Template', 'Expression');
  // A single expression: no `}}` or `{%` that would end it and start a template of its own.
  const delimiters = tokenize(`{{ ${expression} }}`, {}).filter((t: { type: string }) => /^(Open|Close)(Expression|Statement)$/.test(t.type));
  return delimiters.length === 2 ? null : 'Expression must be a single Jinja expression, without {{ }} or {% %}.';
}

export async function renderSandboxed(source: string, context: Record<string, unknown>, limits: SandboxLimits = {}): Promise<string> {
  const problem = checkSyntax(source);
  if (problem) throw new SandboxError(problem);
  return pool.render(source, context, limits);
}

/** Evaluates a Jinja expression such as `artifacts.changed_hosts | length > 0` for its truth. */
export async function evaluateCondition(expression: string, context: Record<string, unknown>, limits: SandboxLimits = {}): Promise<boolean> {
  const problem = checkExpressionSyntax(expression);
  if (problem) throw new SandboxError(problem);
  return (await pool.render(`{% if ${expression} %}1{% endif %}`, context, limits)) === '1';
}

/** One condition's outcome: an expression that fails to evaluate counts as not matched, with its error. */
export interface ConditionOutcome {
  matched: boolean;
  error?: string;
  /** Not evaluated: an earlier condition of a set that stops at the first failure did not hold. */
  skipped?: true;
}

/** Expressions to evaluate over one context (the conditions of a rule over one event). */
export interface ConditionSet {
  expressions: readonly string[];
  /** The variables, or the same as JSON text (a stored event's, passed on without being parsed here). */
  context: Record<string, unknown> | string;
  /** Evaluate no further than the first expression that does not hold (all must hold: the rest cannot change that). */
  stopAtFirstFailure?: boolean;
}

const SKIPPED: ConditionOutcome = { matched: false, skipped: true };

/**
 * The truth of each set's expressions, sets sent to the sandbox together (what one message costs is
 * shared). A set the sandbox stops (time, memory) is tried again alone, so that only its own
 * expressions carry the error. Expressions are checked first: one that does not parse is an error.
 */
export async function evaluateConditionSets(sets: readonly ConditionSet[], limits: SandboxLimits = {}): Promise<ConditionOutcome[][]> {
  const checked = sets.map((set) => set.expressions.map(checkedExpression));
  // A set that stops at its first failure stops at an expression that does not parse, too.
  const evaluable = (set: ConditionSet, problems: (string | null)[]) => {
    const upTo = set.stopAtFirstFailure ? problems.findIndex((p) => p !== null) : -1;
    return set.expressions.filter((_, j) => problems[j] === null && (upTo < 0 || j < upTo));
  };
  const runnable = sets.map((set, i) => ({ ...set, expressions: evaluable(set, checked[i]) }));
  const answers: ConditionOutcome[][] = [];
  for (const group of bySize(runnable)) {
    try {
      answers.push(...await pool.conditions(group, limits));
    } catch (err) {
      if (!(err instanceof SandboxError)) throw err;
      if (group.length === 1) answers.push(group[0].expressions.map(() => ({ matched: false, error: err.message })));
      else for (const set of group) answers.push((await evaluateConditionSets([set], limits))[0]);
    }
  }
  return checked.map((problems, i) => {
    const answered = answers[i][Symbol.iterator]();
    let stopped = false;
    return problems.map((problem) => {
      if (stopped) return SKIPPED;
      const outcome = problem === null ? answered.next().value as ConditionOutcome | undefined ?? SKIPPED : { matched: false, error: problem };
      if (sets[i].stopAtFirstFailure && !outcome.matched) stopped = true;
      return outcome;
    });
  });
}

/** Most context sent in one message (a set larger than this goes alone): the sandbox's heap is small. */
const MAX_MESSAGE_CONTEXT = 2 * 1024 * 1024;

/** The sets in consecutive groups whose contexts together stay under MAX_MESSAGE_CONTEXT. */
function bySize<T extends ConditionSet>(sets: readonly T[]): T[][] {
  const groups: T[][] = [];
  let size = Infinity;
  for (const set of sets) {
    const own = typeof set.context === 'string' ? set.context.length : JSON.stringify(set.context)?.length ?? 0;
    if (size + own > MAX_MESSAGE_CONTEXT) {
      groups.push([]);
      size = 0;
    }
    groups[groups.length - 1].push(set);
    size += own;
  }
  return groups;
}

const checkedExpressions = new Map<string, string | null>();

/** checkExpressionSyntax, remembered: the same conditions are checked at every event. */
function checkedExpression(expression: string): string | null {
  let problem = checkedExpressions.get(expression);
  if (problem === undefined) {
    problem = checkExpressionSyntax(expression);
    if (checkedExpressions.size >= 10_000) checkedExpressions.clear();
    checkedExpressions.set(expression, problem);
  }
  return problem;
}

interface Pending {
  id: number;
  message: Record<string, unknown>;
  timeoutMs: number;
  resolve(answer: { text?: string; results?: ConditionOutcome[][] }): void;
  reject(err: SandboxError): void;
}

/** One process, one render at a time; a render past its time ends the process, and the next render starts a new one. */
class SandboxProcess {
  private child: ChildProcess | null = null;
  /** The child has loaded: a render's time starts only then, not while a busy machine starts the process. */
  private ready = false;
  /** While the child starts with renders waiting (it also keeps the event loop alive: the child does not). */
  private starting: NodeJS.Timeout | null = null;
  private queue: Pending[] = [];
  private current: { job: Pending; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  async render(source: string, context: Record<string, unknown>, limits: SandboxLimits): Promise<string> {
    const answer = await this.send({ source, context, maxOutputChars: limits.maxOutputChars ?? DEFAULT_MAX_OUTPUT }, limits);
    return answer.text ?? '';
  }

  async conditions(conditionSets: readonly ConditionSet[], limits: SandboxLimits): Promise<ConditionOutcome[][]> {
    if (!conditionSets.some((set) => set.expressions.length)) return conditionSets.map(() => []);
    return (await this.send({ conditionSets }, limits)).results ?? [];
  }

  private send(message: Record<string, unknown>, limits: SandboxLimits): Promise<{ text?: string; results?: ConditionOutcome[][] }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, message, timeoutMs: limits.timeoutMs ?? DEFAULT_TIMEOUT_MS, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.current || !this.queue.length) return;
    const child = this.ensureChild();
    if (!this.ready) {
      this.starting ??= setTimeout(() => {
        this.starting = null;
        this.fail(`sandbox did not start within ${STARTUP_TIMEOUT_MS} ms`, true);
      }, STARTUP_TIMEOUT_MS);
      return;
    }
    const job = this.queue.shift()!;
    const timer = setTimeout(() => this.fail(`took longer than ${job.timeoutMs} ms and was stopped`, true), job.timeoutMs);
    this.current = { job, timer };
    child.send({ id: job.id, ...job.message }, (err) => {
      if (err && this.current?.job === job) this.fail(`context could not be passed to the template (${err.message})`, true);
    });
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(new URL('./sandbox-process.js', import.meta.url), [], {
      // The process inherits none of the service's loaders or flags, and has a small heap.
      execArgv: ['--max-old-space-size=64', '--max-semi-space-size=8'],
      env: {},
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    child.unref();
    child.channel?.unref();
    child.on('message', (answer: { id: number; ready?: boolean; text?: string; results?: ConditionOutcome[][]; error?: string }) => {
      if (answer.ready && this.child === child) {
        this.ready = true;
        if (this.starting) clearTimeout(this.starting);
        this.starting = null;
        this.pump();
        return;
      }
      const current = this.current;
      if (!current || current.job.id !== answer.id) return;
      clearTimeout(current.timer);
      this.current = null;
      if (answer.error !== undefined) current.job.reject(new SandboxError(`Template error: ${answer.error}`));
      else current.job.resolve(answer);
      this.pump();
    });
    child.on('error', (err) => {
      if (this.child === child) this.fail(`could not be rendered (${err.message})`, true);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.fail(signal === 'SIGABRT' || code === 134 ? 'used too much memory and was stopped' : 'stopped unexpectedly', true);
    });
    this.child = child;
    this.ready = false;
    return child;
  }

  private fail(message: string, restart: boolean): void {
    const current = this.current;
    if (this.starting) clearTimeout(this.starting);
    this.starting = null;
    if (restart && this.child) {
      const child = this.child;
      this.child = null;
      child.kill('SIGKILL');
    }
    if (current) {
      clearTimeout(current.timer);
      this.current = null;
      current.job.reject(new SandboxError(`Template ${message}.`));
    } else {
      // The process ended before it was ready: the next render fails rather than waiting for ever.
      this.queue.shift()?.reject(new SandboxError(`Template ${message}.`));
    }
    this.pump();
  }
}

const pool = new SandboxProcess();
