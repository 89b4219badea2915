// Runs every test file with node's test runner and prints a closing "N passed, N failed" line.
// Files run a few to a process, one after another (see batchFiles): loading the service's modules
// costs each process seconds of CPU, which a process per file would pay again for every file.
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { run } from 'node:test';
import { finished } from 'node:stream/promises';
import { spec } from 'node:test/reporters';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const root = import.meta.dirname;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'helpers' ? [] : testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const filter = process.argv.slice(2);
// TEST_EXCLUDE: comma-separated parts of paths whose files are left out (.ci/run's second pass leaves out browser/).
const excluded = (process.env.TEST_EXCLUDE ?? '').split(',').filter(Boolean);
const files = testFiles(root)
  .filter((f) => (!filter.length || filter.some((pattern) => f.includes(pattern))) && !excluded.some((pattern) => f.includes(pattern)))
  .sort();

// The fast tier (test/unit/) boots no app: when only its files run, no template database is made.
const unitTier = path.join(root, 'unit') + path.sep;
if (files.some((f) => !f.startsWith(unitTier))) {
  const { loadEnvConfig } = await import('../src/config/env.ts');
  const { prepareTemplate } = await import('./helpers/database.ts');
  const env = await loadEnvConfig({
    SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'drover-template-')),
    POSTGRES_HOST: process.env.POSTGRES_HOST,
    POSTGRES_PASSWORD: process.env.POSTGRES_PASSWORD ?? 'unused',
    SVC_SECRET_KEY: 'template',
    SVC_BROADCAST_WEBSOCKET_SECRET: 'template',
    SVC_ADMIN_PASSWORD: 'template',
    SVC_CSRF_TRUSTED_ORIGINS: 'http://localhost',
  });
  await prepareTemplate(env);
}

let passed = 0;
let failed = 0;
const FILES_PER_PROCESS = Number(process.env.TEST_FILES_PER_PROCESS ?? 6);
/** Files that take a minute or more (TEST_TIMINGS lists them): see batchFiles. */
const LONGEST = ['browser/every-route.test.ts', 'cluster.test.ts', 'task-manager.test.ts', 'project-revisions.test.ts'];

/**
 * Groups the files into modules that import them in turn, FILES_PER_PROCESS to a module. A group
 * takes every n-th file, so the slow files of one area (neighbours by name) are spread out. Their
 * tests run in order, a file's after its predecessor's have ended, as each file's tests do.
 */
function batchFiles(files: string[]): string[] {
  if (FILES_PER_PROCESS <= 1 || files.length <= 1) return files;
  // The longest files run first, each in its own process, so that none of them ends the run alone.
  const first = files.filter((f) => LONGEST.some((name) => f.endsWith(name)));
  const all = files.filter((f) => !first.includes(f));
  const groups = Math.ceil(all.length / FILES_PER_PROCESS);
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-test-batches-'));
  return [...first, ...Array.from({ length: groups }, (_, i) => {
    const members = all.filter((_, index) => index % groups === i);
    const file = path.join(dir, `batch-${String(i + 1).padStart(2, '0')}.test.mjs`);
    writeFileSync(file, members.map((member) => `await import(${JSON.stringify(pathToFileURL(member).href)});\n`).join(''));
    return file;
  })];
}

const stream = run({ files: batchFiles(files), concurrency: Number(process.env.TEST_CONCURRENCY ?? 2), timeout: 30 * 60_000 });
const fileSeconds = new Map<string, number>();
stream.on('test:pass', (event) => {
  if (event.details.type !== 'suite' && event.nesting >= 0 && !event.skip && !event.todo) passed += isLeaf(event) ? 1 : 0;
  recordFileTime(event);
});
stream.on('test:fail', (event) => {
  if (isLeaf(event)) failed += 1;
  recordFileTime(event);
});
const report = stream.compose(new spec());
report.pipe(process.stdout, { end: false });
await finished(report);
if (process.env.TEST_TIMINGS) printSlowestFiles(Number(process.env.TEST_TIMINGS) || 15);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;

function isLeaf(event: { details: { type?: string } }): boolean {
  return event.details.type !== 'suite';
}

function recordFileTime(event: { nesting: number; file?: string; details: { duration_ms?: number } }): void {
  if (!event.file || event.nesting !== 0) return;
  const name = path.relative(root, event.file);
  fileSeconds.set(name, (fileSeconds.get(name) ?? 0) + (event.details.duration_ms ?? 0) / 1000);
}

function printSlowestFiles(count: number): void {
  const slowest = [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, count);
  console.log(`slowest test files (seconds of top-level tests):`);
  for (const [name, seconds] of slowest) console.log(`  ${seconds.toFixed(1).padStart(7)}  ${name}`);
}
