/**
 * Renders a checked injector template (injector-template.ts) as Python's Jinja would. Without
 * loops each node is evaluated at most once, and every string made counts against a work budget
 * with a deadline per template, so rendering is bounded in time and size whatever the template and
 * the inputs.
 */
import { LITERALS, TemplateProblem, type CompiledTemplate, type Node } from './injector-template.ts';

/** What a template renders with: input values, and the files written so far. */
export interface RenderScope {
  values: Readonly<Record<string, string | boolean>>;
  filename?: string | Readonly<Record<string, string>>;
}

/** Shared by every template of one injection: at most `maxWork` characters made, each template within `msPerTemplate`. */
export class RenderBudget {
  private work = 0;
  private deadline = 0;
  constructor(
    private readonly maxWork = 16 * 1024 * 1024,
    private readonly msPerTemplate = 1_000,
  ) {}

  startTemplate(): void {
    this.deadline = Date.now() + this.msPerTemplate;
  }

  spend(text: string): string {
    this.work += text.length;
    if (this.work > this.maxWork) throw new TemplateProblem(`renders more than ${this.maxWork} characters`);
    if (Date.now() > this.deadline) throw new TemplateProblem('took too long to render');
    return text;
  }
}

type Value = string | number | boolean | null | undefined | Readonly<Record<string, string>>;

/** Renders a compiled template; every output and intermediate string is charged to `budget`. */
export function renderTemplate(template: CompiledTemplate, scope: RenderScope, budget: RenderBudget): string {
  const out: string[] = [];
  budget.startTemplate();
  const run = (nodes: Node[]) => {
    for (const node of nodes) {
      if (node.type === 'Comment') continue;
      if (node.type === 'If') run(truthy(evaluate(node.test, scope, budget)) ? node.body : node.alternate);
      else out.push(budget.spend(show(evaluate(node, scope, budget))));
    }
  };
  try {
    run(template.body);
  } catch (err) {
    if (err instanceof RangeError) throw new TemplateProblem('is too deeply nested');
    throw err;
  }
  return out.join('');
}

/** A value as Python's Jinja prints it. */
function show(value: Value): string {
  if (value === undefined) return '';
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'object') throw new TemplateProblem('cannot print tower.filename when several files are injected');
  return String(value);
}

const truthy = (value: Value) => (typeof value === 'object' && value !== null ? true : Boolean(value));

function evaluate(node: Node, scope: RenderScope, budget: RenderBudget): Value {
  const ev = (n: Node) => evaluate(n, scope, budget);
  switch (node.type) {
    case 'StringLiteral':
    case 'IntegerLiteral':
    case 'FloatLiteral':
      return node.value;
    case 'Identifier':
      return node.value in LITERALS ? LITERALS[node.value] : scope.values[node.value];
    case 'MemberExpression': {
      const files = scope.filename;
      if (node.object.type === 'Identifier') return files;
      return typeof files === 'object' ? files[node.property.value] : undefined;
    }
    case 'FilterExpression':
      return applyFilter(node.filter, ev(node.operand), budget);
    case 'BinaryExpression':
      return binary(node.operator.value, node.left, node.right, ev, budget);
    case 'UnaryExpression':
      return !truthy(ev(node.argument));
    case 'TestExpression': {
      const value = ev(node.operand);
      const result = node.test.value === 'none' ? value === null : (value !== undefined) === (node.test.value === 'defined');
      return node.negate ? !result : result;
    }
    case 'Ternary':
      return truthy(ev(node.condition)) ? ev(node.trueExpr) : ev(node.falseExpr);
    default:
      throw new TemplateProblem(`cannot render ${node.type}`);
  }
}

function binary(op: string, left: Node, right: Node, ev: (n: Node) => Value, budget: RenderBudget): Value {
  if (op === 'and') {
    const a = ev(left);
    return truthy(a) ? ev(right) : a;
  }
  if (op === 'or') {
    const a = ev(left);
    return truthy(a) ? a : ev(right);
  }
  const a = ev(left);
  const b = ev(right);
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  if (op === '~') return budget.spend(show(a) + show(b));
  if (op === '+') {
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (typeof a === 'string' && typeof b === 'string') return budget.spend(a + b);
    throw new TemplateProblem('adds values of different types');
  }
  throw new TemplateProblem(`cannot apply "${op}"`);
}

function applyFilter(filter: Node, value: Value, budget: RenderBudget): Value {
  const name: string = filter.type === 'CallExpression' ? filter.callee.value : filter.value;
  if (name === 'default' || name === 'd') {
    const [fallback, onFalsy] = (filter.args ?? []).map((arg: Node) => (arg.type === 'Identifier' ? LITERALS[arg.value] : arg.value));
    return value === undefined || (onFalsy === true && !truthy(value)) ? (fallback ?? '') : value;
  }
  const text = show(value);
  if (name === 'length' || name === 'count') return [...text].length;
  const made = {
    lower: () => text.toLowerCase(),
    upper: () => text.toUpperCase(),
    trim: () => text.trim(),
    string: () => text,
    capitalize: () => text.charAt(0).toUpperCase() + text.slice(1).toLowerCase(),
    title: () => text.toLowerCase().replace(/(^|[-\s([{<])(\w)/g, (_m, sep: string, c: string) => sep + c.toUpperCase()),
  }[name];
  if (!made) throw new TemplateProblem(`cannot apply the filter "${name}"`);
  return budget.spend(made());
}
