// Role matrix of projects and project updates: every caller against every request shape, one test per cell.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, createTestApp, grant, newOrg, type Credentials, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';

const CALLERS = [
  'superuser', 'org admin', 'org project admin', 'project admin', 'project update', 'project use', 'project read',
  'org auditor', 'system auditor', 'org member', 'outsider',
] as const;
type Caller = (typeof CALLERS)[number];

const ORG_ROLES: Partial<Record<Caller, string>> = { 'org admin': 'admin_role', 'org project admin': 'project_admin_role', 'org auditor': 'auditor_role', 'org member': 'member_role' };
const PROJECT_ROLES: Partial<Record<Caller, string>> = { 'project admin': 'admin_role', 'project update': 'update_role', 'project use': 'use_role', 'project read': 'read_role' };

const ORG_LEVEL: Caller[] = ['superuser', 'org admin', 'org project admin'];
const ADMINS: Caller[] = [...ORG_LEVEL, 'project admin'];
const UPDATERS: Caller[] = [...ADMINS, 'project update'];
const READERS: Caller[] = [...UPDATERS, 'project use', 'project read', 'org auditor', 'system auditor'];

const only = (allowed: readonly Caller[], yes: unknown, no: unknown = 403) =>
  Object.fromEntries(CALLERS.map((c) => [c, allowed.includes(c) ? yes : no])) as Record<Caller, unknown>;

describe('project role matrix', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let project: number;
  let updateUrl: string;
  let serial = 0;
  const users = {} as Record<Caller, Credentials & { id: number }>;

  /** A new git project of the organization, synced once, on which every project-level caller holds his role. */
  const freshProject = async () => {
    const res = await t.post('/api/v2/projects/', { name: `p-${++serial}`, organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` });
    assert.equal(res.status, 201, res.text);
    for (const [caller, roleField] of Object.entries(PROJECT_ROLES)) await grant(t, users[caller as Caller], res.body, roleField);
    const first = await eventually(async () => (await t.get(`/api/v2/projects/${res.body.id}/project_updates/`)).body.results[0]);
    return { id: res.body.id as number, update: (await waitForRun(t, first.url)).url as string };
  };

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n' });
    const org = await newOrg(t, { name: 'A' });
    orgId = org.id;
    for (const caller of CALLERS) {
      if (caller === 'superuser') users[caller] = { ...ADMIN, id: (await t.get('/api/v2/users/admin/')).body.id };
      else users[caller] = await t.createUser(caller.replace(/ /g, '-'), caller === 'system auditor' ? { is_system_auditor: true } : {});
      const orgRole = ORG_ROLES[caller];
      if (orgRole) await grant(t, users[caller], org, orgRole);
    }
    ({ id: project, update: updateUrl } = await freshProject());
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  const rows: { name: string; expected: Record<Caller, unknown>; run: (as: Credentials) => Promise<unknown> }[] = [
    { name: 'GET /projects/ lists the project', expected: only(READERS, true, false),
      run: async (as) => (await t.get(`/api/v2/projects/?id=${project}`, { as })).body.count === 1 },
    { name: 'GET /projects/{id}/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/projects/${project}/`, { as })).status },
    { name: 'GET /projects/{id}/playbooks/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/projects/${project}/playbooks/`, { as })).status },
    { name: 'POST /projects/ in the organization', expected: only(ORG_LEVEL, 201),
      run: async (as) => (await t.post('/api/v2/projects/', { name: `new-${++serial}`, organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` }, { as })).status },
    { name: 'PATCH /projects/{id}/', expected: only(ADMINS, 200),
      run: async (as) => (await t.patch(`/api/v2/projects/${project}/`, { description: `by ${as.username}` }, { as })).status },
    { name: 'GET /projects/{id}/update/ can_update', expected: only(UPDATERS, true, false),
      run: async (as) => (await t.get(`/api/v2/projects/${project}/update/`, { as })).body?.can_update ?? false },
    { name: 'POST /projects/{id}/update/', expected: only(UPDATERS, 202), run: async (as) => {
      const res = await t.post(`/api/v2/projects/${project}/update/`, {}, { as });
      if (res.status === 202) await waitForRun(t, res.body.url);
      return res.status;
    } },
    { name: 'GET /project_updates/{id}/stdout/', expected: only(READERS, 200), run: async (as) => (await t.get(`${updateUrl}stdout/`, { as })).status },
    { name: 'GET /unified_jobs/ lists the update', expected: only(READERS, true, false),
      run: async (as) => (await t.get(`/api/v2/unified_jobs/?id=${updateUrl.split('/').at(-2)}`, { as })).body.count === 1 },
    { name: 'DELETE /project_updates/{id}/ (finished)', expected: only(ADMINS, 204), run: async (as) => (await t.delete((await freshProject()).update, { as })).status },
    { name: 'DELETE /projects/{id}/', expected: only(ADMINS, 204), run: async (as) => (await t.delete(`/api/v2/projects/${(await freshProject()).id}/`, { as })).status },
  ];

  for (const row of rows) {
    describe(row.name, () => {
      for (const caller of CALLERS) {
        it(`${caller}: ${JSON.stringify(row.expected[caller])}`, async () => {
          assert.deepEqual(await row.run(users[caller]), row.expected[caller]);
        });
      }
    });
  }
});
