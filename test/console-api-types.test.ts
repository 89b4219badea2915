/**
 * The console reads the API through the types generated from the OpenAPI document
 * (ui/src/api/schema.d.ts, docs/console.md): no untyped object type, and no list of a server enum's
 * values typed out by hand, which would silently go stale when the server's choices change. A page
 * of known resources reads their objects (ResourceObject), never the generic AnyResource.
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { API_TYPES, writeApiTypes } from '../scripts/ui-api-types.ts';

const UI_SOURCE = path.resolve(import.meta.dirname, '../ui/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && full !== API_TYPES ? [full] : [];
  });
}

/** The generic pages: one list, detail and form serving every resource by name (docs/console.md). */
const GENERIC_PAGES = path.join(UI_SOURCE, 'pages/resource');

/** Components outside pages/ that show or change objects of known resources. */
const SINGLE_RESOURCE_COMPONENTS = ['ActivityObjects.tsx', 'CapacityCell.tsx', 'EnableDisableAction.tsx', 'SummaryTemplate.tsx', 'UpdateButton.tsx'].map((name) =>
  path.join(UI_SOURCE, 'components', name),
);

/** Every page but the generic ones, and the components of known resources. */
const singleResourceFiles = () => [
  ...sourceFiles(path.join(UI_SOURCE, 'pages')).filter((file) => !file.startsWith(GENERIC_PAGES + path.sep)),
  ...SINGLE_RESOURCE_COMPONENTS,
];

const usesAnyResource = (text: string) => /\bAnyResource\b/.test(text);

/** Every enum of the generated schema ("a" | "b" | ...), as sets of values. */
function schemaEnums(text: string): Set<string>[] {
  const seen = new Map<string, Set<string>>();
  for (const [union] of text.matchAll(/"[^"\n]*"(?: \| "[^"\n]*")+/g)) {
    const values = [...union.matchAll(/"([^"\n]*)"/g)].map((m) => m[1]);
    seen.set([...values].sort().join('|'), new Set(values));
  }
  return [...seen.values()];
}

/** A list typed against the schema where it is written: tsc checks its values. */
const TYPED_HERE = /enumValues<\w+>\(\)\(|new Set<\w+>\(|satisfies /;

/** String-literal unions ('a' | 'b') and string-literal lists (['a', 'b']) of a source file, with their line; lists typed where written are left out. */
function literalSets(text: string): { line: number; values: string[] }[] {
  const found: { line: number; values: string[] }[] = [];
  const patterns = [/'[^'\n]*'(?: \| '[^'\n]*')+/g, /\[\s*'[^'\n]*'(?:,\s*'[^'\n]*')+,?\s*\]/g];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const values = [...match[0].matchAll(/'([^'\n]*)'/g)].map((m) => m[1]);
      const line = text.slice(text.lastIndexOf('\n', match.index) + 1, text.indexOf('\n', match.index + match[0].length) >>> 0);
      if (TYPED_HERE.test(line)) continue;
      found.push({ line: text.slice(0, match.index).split('\n').length, values });
    }
  }
  return found;
}

/** A literal set copies an enum when it is the enum, or three or more of its values. */
const copies = (values: string[], enumValues: Set<string>) =>
  values.every((v) => enumValues.has(v)) && (values.length >= 3 || new Set(values).size === enumValues.size);

describe('console API types', () => {
  let enums: Set<string>[];

  before(async () => {
    if (!existsSync(API_TYPES)) await writeApiTypes();
    enums = schemaEnums(readFileSync(API_TYPES, 'utf8'));
  });

  it('finds the enums of the schema and the literal lists of a source (the check below can fail)', () => {
    assert.ok(enums.some((e) => e.has('launch_job_template') && e.has('send_notification')), 'event rule action types');
    assert.ok(enums.some((e) => e.has('critical') && e.has('low')), 'drift severities');
    const sample = "type A = 'low' | 'medium' | 'high';\nconst B = ['critical', 'high'];\nconst C = new Set<Severity>(['low', 'high']);";
    assert.deepEqual(literalSets(sample), [{ line: 1, values: ['low', 'medium', 'high'] }, { line: 2, values: ['critical', 'high'] }]);
    assert.ok(enums.some((e) => copies(['low', 'medium', 'high'], e)));
  });

  it('finds the single-resource pages and their use of AnyResource (the check below can fail)', () => {
    const files = singleResourceFiles().map((f) => path.relative(UI_SOURCE, f));
    assert.ok(files.includes(path.join('pages', 'drift', 'DriftDetectionPage.tsx')), 'a resource page is checked');
    assert.ok(files.includes(path.join('pages', 'runs', 'RunPage.tsx')), 'the run page is checked');
    assert.ok(!files.some((f) => f.startsWith(path.join('pages', 'resource'))), 'the generic pages are not');
    for (const file of SINGLE_RESOURCE_COMPONENTS) assert.ok(existsSync(file), `${path.relative(UI_SOURCE, file)} exists`);
    assert.ok(usesAnyResource("export default function Page({ object }: { object: AnyResource }) {"));
    assert.ok(!usesAnyResource("export default function Page({ object }: { object: ResourceObject<'hosts'> }) {"));
  });

  it('reads the objects of a known resource as that resource\'s type, not AnyResource', () => {
    const untyped = singleResourceFiles().filter((file) => usesAnyResource(readFileSync(file, 'utf8')));
    assert.deepEqual(untyped.map((f) => path.relative(UI_SOURCE, f)), []);
  });

  it('has no untyped API object type', () => {
    const users = sourceFiles(UI_SOURCE).filter((file) => /\bApiObject\b/.test(readFileSync(file, 'utf8')));
    assert.deepEqual(users.map((f) => path.relative(UI_SOURCE, f)), []);
  });

  it('types enum values from the schema instead of copying them', () => {
    const copied: string[] = [];
    for (const file of sourceFiles(UI_SOURCE)) {
      for (const { line, values } of literalSets(readFileSync(file, 'utf8'))) {
        if (enums.some((e) => copies(values, e))) copied.push(`${path.relative(UI_SOURCE, file)}:${line}: ${values.join(', ')}`);
      }
    }
    assert.deepEqual(copied, []);
  });
});
