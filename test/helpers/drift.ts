/** Drift test helpers: a host's facts as a job's fact cache would save them, then their capture. */
import type { TestApp } from './app.ts';
import { eventually } from './jobs.ts';
import { queueFactCapture } from '../../src/drift/capture-queue.ts';

/** Writes the hosts' facts (as the fact cache does after a job) and waits until the capture loop has taken them. */
export async function saveFacts(t: TestApp, facts: Record<number, Record<string, unknown>>, jobId: number | null = null): Promise<void> {
  const ids = Object.keys(facts).map(Number);
  for (const id of ids) await t.db.query('UPDATE hosts SET ansible_facts = $2::jsonb, ansible_facts_modified = now() WHERE id = $1', [id, JSON.stringify(facts[id])]);
  await queueFactCapture(t.db, jobId, ids);
  await eventually(async () => (await t.db.query('SELECT 1 FROM fact_capture_queue')).length === 0, 30_000, 'fact capture done');
}

/** A host's facts in miniature: one fact of a few categories, and volatile ones that differ at every call. */
export const baseFacts = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  ansible_kernel: '6.1.0-1',
  ansible_packages: { openssl: [{ version: '3.0.1' }], curl: [{ version: '7.88' }] },
  ansible_all_ipv4_addresses: ['10.0.0.5'],
  ansible_date_time: { epoch: String(Date.now()) },
  ansible_uptime_seconds: Math.floor(Math.random() * 1e6),
  app_version: '1.0',
  ...overrides,
});
