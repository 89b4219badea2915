import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadEnvConfig, type EnvConfig } from '../src/config/env.ts';
import { inspect, manage, standaloneValues } from './helpers/standalone.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

interface Seeded {
  /** Run name -> id. */
  ids: Record<string, number>;
}

/**
 * Per kind: finished runs 100 days old (successful, failed, canceled), unfinished ones as old, and a
 * finished one of yesterday; the project's and the inventory source's latest update is old too.
 */
async function seed(env: EnvConfig): Promise<Seeded> {
  return inspect(env, async ({ db }) => {
    const [org] = await db.query<AnyRow>(`INSERT INTO organizations (name) VALUES ('O') RETURNING id`);
    const [project] = await db.query<AnyRow>(`INSERT INTO projects (name, organization_id) VALUES ('P', $1) RETURNING id`, [org.id]);
    const [inventory] = await db.query<AnyRow>(`INSERT INTO inventories (name, organization_id) VALUES ('I', $1) RETURNING id`, [org.id]);
    const [source] = await db.query<AnyRow>(`INSERT INTO inventory_sources (name, inventory_id, source) VALUES ('S', $1, 'scm') RETURNING id`, [inventory.id]);
    const ids: Record<string, number> = {};
    const run = async (name: string, kind: string, status: string, ageDays: number) => {
      const finished = ['successful', 'failed', 'error', 'canceled'].includes(status);
      const [row] = await db.query<AnyRow>(
        `INSERT INTO unified_jobs (kind, name, status, created, finished, project_id, inventory_id, inventory_source_id)
         VALUES ($1, $2, $3, now() - make_interval(days => $4), CASE WHEN $5 THEN now() - make_interval(days => $4) END, $6, $7, $8) RETURNING id`,
        [kind, name, status, ageDays, finished, kind === 'project_update' ? project.id : null, inventory.id, kind === 'inventory_update' ? source.id : null],
      );
      ids[name] = row.id;
    };
    for (const kind of ['job', 'project_update', 'inventory_update', 'ad_hoc_command']) {
      await run(`${kind} old ok`, kind, 'successful', 100);
      await run(`${kind} old failed`, kind, 'failed', 100);
      await run(`${kind} old canceled`, kind, 'canceled', 100);
      await run(`${kind} old running`, kind, 'running', 100);
      await run(`${kind} old pending`, kind, 'pending', 100);
      await run(`${kind} recent`, kind, 'successful', 1);
    }
    await run('project_update latest', 'project_update', 'successful', 99);
    await run('inventory_update latest', 'inventory_update', 'failed', 99);
    await db.query<AnyRow>('UPDATE projects SET last_job_id = $2 WHERE id = $1', [project.id, ids['project_update latest']]);
    await db.query<AnyRow>('UPDATE inventory_sources SET last_job_id = $2 WHERE id = $1', [source.id, ids['inventory_update latest']]);
    await db.query<AnyRow>(
      `INSERT INTO unified_job_events (unified_job_id, counter, event, stdout) VALUES ($1, 1, 'verbose', 'old output'), ($2, 1, 'verbose', 'new output')`,
      [ids['job old ok'], ids['job recent']],
    );
    return { ids };
  });
}

const remaining = (env: EnvConfig) => inspect(env, async ({ db }) => (await db.query<{ name: string }>('SELECT name FROM unified_jobs ORDER BY id')).map((r) => r.name));

/** A data directory of its own and, in server mode, an empty database of its own. */
async function freshEnv(): Promise<EnvConfig> {
  const { values } = await standaloneValues('cleanup-jobs', { SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: 'cleanup-node' });
  return loadEnvConfig(values);
}

describe('drover manage cleanup_jobs', () => {
  let env: EnvConfig;
  let all: string[];
  before(async () => {
    env = await freshEnv();
    await seed(env);
    all = await remaining(env);
  });

  it('rejects a --days that is not a whole number, deleting nothing', async () => {
    for (const bad of ['-1', 'ten', '1.5', '']) {
      const res = await manage(env, 'cleanup_jobs', `--days=${bad}`);
      assert.equal(res.code, 2, bad);
      assert.match(res.err[0], /--days must be a whole number of days/);
    }
    assert.equal((await manage(env, 'cleanup_jobs', '--everything')).code, 2);
    assert.deepEqual(await remaining(env), all);
  });

  // In the order of AWX's cleanup_jobs: jobs, ad hoc commands, project updates, inventory updates, management jobs.
  it('--dry-run reports per kind what would go, and deletes nothing', async () => {
    const res = await manage(env, 'cleanup_jobs', '--days', '30', '--dry-run');
    assert.equal(res.code, 0, res.err.join('\n'));
    assert.deepEqual(res.out, [
      'jobs: 3 would be deleted, 2 would be skipped.',
      'ad hoc commands: 3 would be deleted, 2 would be skipped.',
      'project updates: 3 would be deleted, 3 would be skipped.',
      'inventory updates: 3 would be deleted, 3 would be skipped.',
      'management jobs: 0 would be deleted, 0 would be skipped.',
    ]);
    assert.deepEqual(await remaining(env), all);
  });

  it('a kind option limits the cleanup to that kind', async () => {
    const res = await manage(env, 'cleanup_jobs', '--days=30', '--jobs');
    assert.equal(res.code, 0, res.err.join('\n'));
    assert.deepEqual(res.out, ['jobs: 3 deleted, 2 skipped.']);
    const left = await remaining(env);
    assert.deepEqual(all.filter((n) => !left.includes(n)), ['job old ok', 'job old failed', 'job old canceled']);
    const events = await inspect(env, ({ db }) => db.query<AnyRow>('SELECT stdout FROM unified_job_events ORDER BY id'));
    assert.deepEqual(events.map((e) => e.stdout), ['new output'], "a deleted run's events go with it");
  });

  it('deletes finished runs older than the cutoff, never unfinished ones nor the latest update a project shows', async () => {
    const res = await manage(env, 'cleanup_jobs', '--days', '30');
    assert.equal(res.code, 0, res.err.join('\n'));
    assert.deepEqual(res.out, [
      'jobs: 0 deleted, 2 skipped.',
      'ad hoc commands: 3 deleted, 2 skipped.',
      'project updates: 3 deleted, 3 skipped.',
      'inventory updates: 3 deleted, 3 skipped.',
      'management jobs: 0 deleted, 0 skipped.',
    ]);
    const left = await remaining(env);
    for (const kind of ['job', 'project_update', 'inventory_update', 'ad_hoc_command']) {
      for (const name of ['old running', 'old pending', 'recent']) assert.ok(left.includes(`${kind} ${name}`), `${kind} ${name} kept`);
      for (const name of ['old ok', 'old failed', 'old canceled']) assert.ok(!left.includes(`${kind} ${name}`), `${kind} ${name} deleted`);
    }
    assert.ok(left.includes('project_update latest') && left.includes('inventory_update latest'));
  });

  it('--days 0 takes every finished run, and the default keeps 90 days', async () => {
    const other = await freshEnv();
    await seed(other);
    const byDefault = await manage(other, 'cleanup_jobs');
    assert.equal(byDefault.out[0], 'jobs: 3 deleted, 2 skipped.');
    const none = await manage(other, 'cleanup_jobs', '--days=0', '--jobs');
    assert.deepEqual(none.out, ['jobs: 1 deleted, 2 skipped.']);
    const left = await remaining(other);
    assert.ok(!left.includes('job recent'));
    assert.ok(left.includes('job old running') && left.includes('job old pending'));
  });
});
