/**
 * Injector templates: Jinja parsed by @huggingface/jinja, then checked against a small whitelist
 * (this file) and rendered by our own evaluator (template-render.ts), never by the library's
 * interpreter. No loops, no assignments, no calls, no attribute access beyond tower.filename.
 */
import { parse, tokenize } from '@huggingface/jinja';
import { sourceLimitProblem } from '../../templating/sandbox.ts';

export class TemplateProblem extends Error {}

/** What a template may name: the type's input ids, and the files its file injectors define. */
export interface TemplateNames {
  inputs: ReadonlySet<string>;
  /** 'single' for a "template" file injector, the names of "template.<name>" injectors, or none. */
  files: 'single' | ReadonlySet<string>;
}

export type Node = { type: string; [key: string]: any };
export type CompiledTemplate = { body: Node[] };

export const LITERALS: Record<string, boolean | null> = { true: true, True: true, false: false, False: false, none: null, None: null };
const FILTERS = new Set(['default', 'd', 'lower', 'upper', 'trim', 'capitalize', 'title', 'string', 'length', 'count']);
const OPERATORS = new Set(['==', '!=', 'and', 'or', '~', '+']);
const TESTS = new Set(['defined', 'undefined', 'none']);
const DESCRIBE: Record<string, string> = {
  For: 'for loops', Set: 'set', Macro: 'macros', CallExpression: 'calls', CallStatement: 'call blocks', FilterStatement: 'filter blocks',
  ArrayLiteral: 'lists', TupleLiteral: 'tuples', ObjectLiteral: 'dictionaries', SliceExpression: 'slices', SelectExpression: 'select expressions',
};

/** Parses and checks a template; TemplateProblem says what is wrong. */
export function compileTemplate(source: string, names: TemplateNames): CompiledTemplate {
  const limit = sourceLimitProblem(source);
  if (limit) throw new TemplateProblem(limit);
  let program: Node;
  try {
    program = parse(tokenize(source, {})) as unknown as Node;
  } catch (err) {
    throw new TemplateProblem(`has a syntax error (${err instanceof RangeError ? 'too deeply nested' : (err as Error).message})`);
  }
  try {
    program.body.forEach((node: Node) => checkStatement(node, names));
  } catch (err) {
    if (err instanceof RangeError) throw new TemplateProblem('is too deeply nested');
    throw err;
  }
  return { body: program.body };
}

function checkStatement(node: Node, names: TemplateNames): void {
  if (node.type === 'Comment') return;
  if (node.type === 'If') {
    checkExpression(node.test, names);
    [...node.body, ...node.alternate].forEach((n: Node) => checkStatement(n, names));
    return;
  }
  checkExpression(node, names);
}

function checkExpression(node: Node, names: TemplateNames): void {
  switch (node.type) {
    case 'StringLiteral':
    case 'IntegerLiteral':
    case 'FloatLiteral':
      return;
    case 'Identifier':
      if (node.value in LITERALS || names.inputs.has(node.value)) return;
      if (node.value === 'tower') throw new TemplateProblem('cannot reference the reserved `tower` namespace itself');
      throw new TemplateProblem(`uses an undefined field (${node.value} is undefined)`);
    case 'MemberExpression':
      return checkTowerFilename(node, names);
    case 'FilterExpression': {
      checkExpression(node.operand, names);
      const call = node.filter.type === 'CallExpression';
      const name = call ? (node.filter.callee.type === 'Identifier' ? node.filter.callee.value : '') : node.filter.value;
      if (!FILTERS.has(name)) throw new TemplateProblem(`uses the filter "${name}", which is not allowed (allowed: ${[...FILTERS].join(', ')})`);
      if (call && (!['default', 'd'].includes(name) || node.filter.args.length > 2)) throw new TemplateProblem(`passes arguments to the filter "${name}"`);
      if (call) node.filter.args.forEach((arg: Node) => checkLiteral(arg));
      return;
    }
    case 'BinaryExpression':
      if (!OPERATORS.has(node.operator.value)) throw new TemplateProblem(`uses the operator "${node.operator.value}", which is not allowed`);
      checkExpression(node.left, names);
      return checkExpression(node.right, names);
    case 'UnaryExpression':
      if (node.operator.value !== 'not') throw new TemplateProblem(`uses the operator "${node.operator.value}", which is not allowed`);
      return checkExpression(node.argument, names);
    case 'TestExpression':
      if (!TESTS.has(node.test.value)) throw new TemplateProblem(`uses the test "${node.test.value}", which is not allowed`);
      return checkExpression(node.operand, names);
    case 'Ternary':
      [node.condition, node.trueExpr, node.falseExpr].forEach((n: Node) => checkExpression(n, names));
      return;
    default:
      throw new TemplateProblem(`uses ${DESCRIBE[node.type] ?? node.type}, which is not allowed in credential injectors`);
  }
}

function checkLiteral(node: Node): void {
  const literal = ['StringLiteral', 'IntegerLiteral', 'FloatLiteral'].includes(node.type) || (node.type === 'Identifier' && node.value in LITERALS);
  if (!literal) throw new TemplateProblem('passes a filter argument that is not a literal');
}

/** tower.filename (a single file injector) or tower.filename.<name> (one of several). */
function checkTowerFilename(node: Node, names: TemplateNames): void {
  const path: string[] = [];
  let current = node;
  while (current.type === 'MemberExpression' && !current.computed && current.property.type === 'Identifier') {
    path.unshift(current.property.value);
    current = current.object;
  }
  if (current.type !== 'Identifier' || current.value !== 'tower' || path[0] !== 'filename' || path.length > 2 || node.computed) {
    throw new TemplateProblem('may only use attributes as tower.filename or tower.filename.<name>');
  }
  if (path.length === 1 && names.files !== 'single') throw new TemplateProblem('references tower.filename without an unnamed file injector ("template")');
  if (path.length === 2 && (names.files === 'single' || !names.files.has(path[1]))) {
    throw new TemplateProblem(`references tower.filename.${path[1]} without a file injector "template.${path[1]}"`);
  }
}

/** The input ids a compiled template reads (to know which rendered values carry secrets). */
export function templateInputs(template: CompiledTemplate): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const node = value as Node;
      if (node.type === 'Identifier' && !(node.value in LITERALS)) found.add(node.value);
      for (const child of Object.values(node)) if (child && typeof child === 'object') visit(child);
    }
  };
  visit(template.body);
  return found;
}
