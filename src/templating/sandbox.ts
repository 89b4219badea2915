/**
 * Jinja for user-written templates and expressions (notification messages, workflow edge conditions,
 * event rule conditions, dynamic survey choices): rendered by @huggingface/jinja, an interpreter with
 * no path to JavaScript internals, in child processes with a small heap, so a runaway loop is stopped
 * by killing its process when its time is up, and a template that allocates without bound ends that
 * process, not the service (a worker thread that runs out of heap can take the whole process down with
 * it). Every render is for an organization, and the processes serve organizations in turn
 * (sandbox-pool.ts).
 */
import { tokenize, parse } from '@huggingface/jinja';
import { SandboxPool, type QueueRequest } from './sandbox-pool.ts';
import { SandboxError } from './sandbox-worker.ts';

export { SandboxError };

export interface SandboxLimits {
  /** Wall-clock time one render may take once a process has it (default 1 s). */
  timeoutMs?: number;
  /** Longest output kept (default 100,000 characters). */
  maxOutputChars?: number;
}

/** A render: its limits and the organization it is for (null: the service's own), whose turn it waits for. */
export type SandboxRequest = SandboxLimits & QueueRequest;

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

export async function renderSandboxed(source: string, context: Record<string, unknown>, request: SandboxRequest): Promise<string> {
  const problem = checkSyntax(source);
  if (problem) throw new SandboxError(problem);
  return render(source, context, request);
}

/** Evaluates a Jinja expression such as `artifacts.changed_hosts | length > 0` for its truth. */
export async function evaluateCondition(expression: string, context: Record<string, unknown>, request: SandboxRequest): Promise<boolean> {
  const problem = checkExpressionSyntax(expression);
  if (problem) throw new SandboxError(problem);
  return (await render(`{% if ${expression} %}1{% endif %}`, context, request)) === '1';
}

/** `source` rendered in the shared pool (a test may pass a pool of its own). */
export async function render(source: string, context: Record<string, unknown>, request: SandboxRequest, on: SandboxPool = pool()): Promise<string> {
  const message = { source, context, maxOutputChars: request.maxOutputChars ?? DEFAULT_MAX_OUTPUT };
  return (await on.send(message, request.timeoutMs ?? DEFAULT_TIMEOUT_MS, request)).text ?? '';
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
  /** Whose conditions they are: sets are sent to the sandbox per organization, in its turn. */
  organization: number | null;
  expressions: readonly string[];
  /** The variables, or the same as JSON text (a stored event's, passed on without being parsed here). */
  context: Record<string, unknown> | string;
  /** Evaluate no further than the first expression that does not hold (all must hold: the rest cannot change that). */
  stopAtFirstFailure?: boolean;
}

const SKIPPED: ConditionOutcome = { matched: false, skipped: true };

/**
 * The truth of each set's expressions, the sets of one organization sent to the sandbox together (what
 * one message costs is shared), one message at a time per organization, organizations side by side. A
 * set the sandbox stops (time, memory) is tried again alone, so that only its own expressions carry the
 * error. Expressions are checked first: one that does not parse is an error.
 */
export async function evaluateConditionSets(sets: readonly ConditionSet[], limits: SandboxLimits & Pick<QueueRequest, 'serviceWork'> = {}): Promise<ConditionOutcome[][]> {
  const checked = sets.map((set) => set.expressions.map(checkedExpression));
  // A set that stops at its first failure stops at an expression that does not parse, too.
  const evaluable = (set: ConditionSet, problems: (string | null)[]) => {
    const upTo = set.stopAtFirstFailure ? problems.findIndex((p) => p !== null) : -1;
    return set.expressions.filter((_, j) => problems[j] === null && (upTo < 0 || j < upTo));
  };
  const runnable = sets.map((set, i) => ({ ...set, expressions: evaluable(set, checked[i]) }));
  const answers = new Map<ConditionSet, ConditionOutcome[]>();
  const byOrganization = new Map<number | null, ConditionSet[]>();
  for (const set of runnable) {
    const own = byOrganization.get(set.organization);
    if (own) own.push(set);
    else byOrganization.set(set.organization, [set]);
  }
  await Promise.all([...byOrganization.values()].map(async (own) => {
    for (const group of bySize(own)) {
      const outcomes = await evaluateGroup(group, limits);
      group.forEach((set, i) => answers.set(set, outcomes[i]));
    }
  }));
  return checked.map((problems, i) => {
    const answered = answers.get(runnable[i])![Symbol.iterator]();
    let stopped = false;
    return problems.map((problem) => {
      if (stopped) return SKIPPED;
      const outcome = problem === null ? answered.next().value as ConditionOutcome | undefined ?? SKIPPED : { matched: false, error: problem };
      if (sets[i].stopAtFirstFailure && !outcome.matched) stopped = true;
      return outcome;
    });
  });
}

/** One message's sets (all of one organization) evaluated; a set the sandbox stops is tried again alone. */
async function evaluateGroup(group: readonly ConditionSet[], limits: SandboxLimits & Pick<QueueRequest, 'serviceWork'>): Promise<ConditionOutcome[][]> {
  if (!group.some((set) => set.expressions.length)) return group.map(() => []);
  const request = { organization: group[0].organization, serviceWork: limits.serviceWork };
  try {
    return (await pool().send({ conditionSets: group }, limits.timeoutMs ?? DEFAULT_TIMEOUT_MS, request)).results ?? [];
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    if (group.length === 1) return [group[0].expressions.map(() => ({ matched: false, error: err.message }))];
    const alone: ConditionOutcome[][] = [];
    for (const set of group) alone.push(...await evaluateGroup([set], limits));
    return alone;
  }
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

let shared: SandboxPool | null = null;

/** The service's pool, made at first use (its processes start when work needs them). */
function pool(): SandboxPool {
  shared ??= new SandboxPool();
  return shared;
}
