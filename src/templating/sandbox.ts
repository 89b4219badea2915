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

interface Pending {
  id: number;
  source: string;
  context: Record<string, unknown>;
  limits: Required<SandboxLimits>;
  resolve(text: string): void;
  reject(err: SandboxError): void;
}

/** One process, one render at a time; a render past its time ends the process, and the next render starts a new one. */
class SandboxProcess {
  private child: ChildProcess | null = null;
  private queue: Pending[] = [];
  private current: { job: Pending; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  render(source: string, context: Record<string, unknown>, limits: SandboxLimits): Promise<string> {
    return new Promise((resolve, reject) => {
      const full = { timeoutMs: limits.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxOutputChars: limits.maxOutputChars ?? DEFAULT_MAX_OUTPUT };
      this.queue.push({ id: this.nextId++, source, context, limits: full, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.current || !this.queue.length) return;
    const job = this.queue.shift()!;
    const child = this.ensureChild();
    const timer = setTimeout(() => this.fail(`took longer than ${job.limits.timeoutMs} ms and was stopped`, true), job.limits.timeoutMs);
    this.current = { job, timer };
    child.send({ id: job.id, source: job.source, context: job.context, maxOutputChars: job.limits.maxOutputChars }, (err) => {
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
    child.on('message', (answer: { id: number; text?: string; error?: string }) => {
      const current = this.current;
      if (!current || current.job.id !== answer.id) return;
      clearTimeout(current.timer);
      this.current = null;
      if (answer.error !== undefined) current.job.reject(new SandboxError(`Template error: ${answer.error}`));
      else current.job.resolve(answer.text ?? '');
      this.pump();
    });
    child.on('error', (err) => {
      if (this.child === child) this.fail(`could not be rendered (${err.message})`, true);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.fail(signal === 'SIGABRT' || code === 134 ? 'used too much memory and was stopped' : 'stopped unexpectedly', true);
    });
    this.child = child;
    return child;
  }

  private fail(message: string, restart: boolean): void {
    const current = this.current;
    if (restart && this.child) {
      const child = this.child;
      this.child = null;
      child.kill('SIGKILL');
    }
    if (current) {
      clearTimeout(current.timer);
      this.current = null;
      current.job.reject(new SandboxError(`Template ${message}.`));
    }
    this.pump();
  }
}

const pool = new SandboxProcess();
