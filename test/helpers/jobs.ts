import { readdir } from 'node:fs/promises';
import { runDirectoriesRoot } from '../../src/dispatcher/run-directories.ts';
import type { TestApp } from './app.ts';

const FINAL = new Set(['successful', 'failed', 'error', 'canceled']);

/** Polls a run's detail URL until it reaches a final status and answers its body. */
export async function waitForRun(t: TestApp, url: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.get(url);
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${res.text}`);
    if (FINAL.has(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`${url} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls until `check` answers something truthy; `what` names the awaited condition in the error on timeout. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 30_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Private run directories the node of this app still holds (of one run, when given). */
export async function runDirectories(t: TestApp, runId?: number): Promise<string[]> {
  const entries = await readdir(runDirectoriesRoot(t.env)).catch(() => [] as string[]);
  return entries.filter((name) => name.startsWith(runId === undefined ? 'drover-run-' : `drover-run-${runId}-`));
}

/** Waits for a project's first update (made when a git project is created) to finish, and answers it. */
export async function firstProjectUpdate(t: TestApp, projectId: number): Promise<any> {
  const update = await eventually(async () => (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0]);
  return waitForRun(t, update.url);
}
