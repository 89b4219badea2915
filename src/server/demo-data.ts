import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { recordActivity } from '../activity/record.ts';
import { systemContextIn, type ServiceView } from '../api/context.ts';
import { createObject } from '../api/crud.ts';
import { ValidationError } from '../api/errors.ts';
import { type Resource } from '../api/resource.ts';
import type { EnvConfig } from '../config/env.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { InstallationRow } from '../db/tables.ts';
import { demoRepositoryPath } from '../projects/demo-repository.ts';

const run = promisify(execFile);

/** The playbook of AWX's demo project (github.com/ansible/ansible-tower-samples). */
export const HELLO_WORLD = `---
- name: Hello World Sample
  hosts: all
  gather_facts: false
  tasks:
    - name: Hello Message
      debug:
        msg: "Hello World!"
`;

const DEMO_HOST_VARIABLES = "ansible_connection: local\nansible_python_interpreter: '{{ ansible_playbook_python }}'";

// Fixed author, committer and dates: every node makes the same commit, so the revision the demo
// project's updates record is the same in every node's copy (docs/projects.md#several-nodes).
const DEMO_DATE = '2024-01-01T00:00:00Z';
const GIT_ENV = {
  ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Drover', GIT_AUTHOR_EMAIL: 'drover@localhost', GIT_AUTHOR_DATE: DEMO_DATE,
  GIT_COMMITTER_NAME: 'Drover', GIT_COMMITTER_EMAIL: 'drover@localhost', GIT_COMMITTER_DATE: DEMO_DATE,
};
const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false', ...args], { cwd, env: GIT_ENV });

/** Makes the demo repository (once) with the git CLI: one commit holding hello_world.yml on main. */
async function ensureDemoRepository(bare: string): Promise<void> {
  if (await access(path.join(bare, 'HEAD')).then(() => true, () => false)) return;
  await mkdir(path.dirname(bare), { recursive: true, mode: 0o700 });
  const work = await mkdtemp(path.join(tmpdir(), 'drover-demo-'));
  try {
    await git(work, 'init', '--quiet', '-b', 'main');
    await writeFile(path.join(work, 'hello_world.yml'), HELLO_WORLD);
    await git(work, 'add', 'hello_world.yml');
    await git(work, 'commit', '--quiet', '-m', 'Hello World sample playbook');
    await rm(bare, { recursive: true, force: true });
    await git(work, 'clone', '--quiet', '--bare', work, bare);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Makes this node's copy of the demo repository when demo content exists (made by any node), so
 * that the Demo Project's revisions can be fetched on every node.
 */
export async function holdDemoRepository(db: Queryable, env: Pick<EnvConfig, 'dataDir'>): Promise<void> {
  const [row] = await db.query<Pick<InstallationRow, 'demo_repository'>>('SELECT demo_repository FROM installation');
  if (row?.demo_repository) await ensureDemoRepository(demoRepositoryPath(env));
}

/** Whether the database holds none of the kinds the demo adds (a fresh install, not one in use). */
async function emptyOfDemoKinds(tx: Queryable): Promise<boolean> {
  const [row] = await tx.query<{ used: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM projects) OR EXISTS (SELECT 1 FROM inventories) OR EXISTS (SELECT 1 FROM job_templates)
       OR EXISTS (SELECT 1 FROM credentials WHERE NOT managed) AS used`,
  );
  return !row.used;
}

/**
 * The demo template is created before its project's first sync has fetched the playbook, as AWX's
 * installer does; every other check of the template still applies.
 */
function withoutPlaybookCheck(resource: Resource): Resource {
  const check = resource.hooks.beforeWrite;
  return {
    ...resource,
    hooks: {
      ...resource.hooks,
      async beforeWrite(tx, ctx, values, existing) {
        try {
          await check?.(tx, ctx, values, existing);
        } catch (err) {
          const onlyPlaybook = err instanceof ValidationError && Object.keys(err.errors).join() === 'playbook';
          if (!onlyPlaybook) throw err;
        }
      },
    },
  };
}

/**
 * AWX's create_preload_data: Demo Project (git, from a local repository holding hello_world.yml),
 * Demo Inventory with localhost, Demo Credential (Machine) and Demo Job Template, in the Default
 * organization. Considered once per installation and only on a database without projects,
 * inventories, job templates or credentials, so deleted demo objects stay deleted. The project's
 * first sync is queued as any new project's. Answers whether the content was created.
 */
export async function createDemoData(services: ServiceView & { db: Database }): Promise<boolean> {
  const { db, env } = services;
  const system = systemContextIn(services);
  const repository = demoRepositoryPath(env);
  const [{ demo_data_considered: considered }] = await db.query<InstallationRow>('SELECT demo_data_considered FROM installation');
  if (considered) return false;
  if (await emptyOfDemoKinds(db)) await ensureDemoRepository(repository);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7341104)');
    const [marker] = await tx.query('UPDATE installation SET demo_data_considered = true WHERE NOT demo_data_considered RETURNING 1');
    if (!marker || !(await emptyOfDemoKinds(tx))) return false;
    await tx.query('UPDATE installation SET demo_repository = $1', [repository]);
    const [organization] = await tx.query<{ id: number }>(`SELECT id FROM organizations WHERE name = 'Default'`);
    const [owner] = await tx.query<{ id: number; username: string }>('SELECT id, username FROM users WHERE is_superuser ORDER BY id LIMIT 1');
    const [machine] = await tx.query<{ id: number }>(`SELECT id FROM credential_types WHERE namespace = 'ssh' AND managed`);
    if (!organization || !owner || !machine) return false;

    const create = (name: string, values: Record<string, unknown>, resource = services.resources.get(name)) => createObject(tx, system, resource, values);
    const credential = await create('credential', {
      name: 'Demo Credential',
      description: '',
      credential_type: machine.id,
      inputs: { username: owner.username },
      user: owner.id,
    });
    const inventory = await create('inventory', { name: 'Demo Inventory', description: '', organization: organization.id });
    await create('host', { name: 'localhost', description: '', inventory: inventory.id, variables: DEMO_HOST_VARIABLES });
    const project = await create('project', {
      name: 'Demo Project',
      description: '',
      organization: organization.id,
      scm_type: 'git',
      scm_url: `file://${repository}`,
      scm_update_on_launch: true,
      scm_update_cache_timeout: 0,
    });
    const template = await create(
      'job_template',
      { name: 'Demo Job Template', description: '', project: project.id, inventory: inventory.id, playbook: 'hello_world.yml' },
      withoutPlaybookCheck(services.resources.get('job_template')),
    );
    await tx.query('INSERT INTO job_template_credentials (job_template_id, credential_id) VALUES ($1, $2)', [template.id, credential.id]);
    await recordActivity(tx, system, {
      operation: 'associate', object1: 'job_template', object1Id: template.id, object2: 'credential', object2Id: credential.id, association: 'credentials', changes: {},
    });
    return true;
  });
}
