// Role matrix of job templates: every caller against every request shape, one test per cell.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, createTestApp, grant, newOrg, newUser, type Credentials, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate } from './helpers/jobs.ts';

const CALLERS = [
  'superuser', 'org admin', 'org jt admin', 'template admin', 'template execute', 'template read',
  'org auditor', 'system auditor', 'org member', 'outsider',
] as const;
type Caller = (typeof CALLERS)[number];

const ORG_ROLES: Partial<Record<Caller, string>> = { 'org admin': 'admin_role', 'org jt admin': 'job_template_admin_role', 'org auditor': 'auditor_role', 'org member': 'member_role' };
const TEMPLATE_ROLES: Partial<Record<Caller, string>> = { 'template admin': 'admin_role', 'template execute': 'execute_role', 'template read': 'read_role' };

const ORG_LEVEL: Caller[] = ['superuser', 'org admin', 'org jt admin'];
const ADMINS: Caller[] = [...ORG_LEVEL, 'template admin'];
const EXECUTORS: Caller[] = [...ADMINS, 'template execute'];
const READERS: Caller[] = [...EXECUTORS, 'template read', 'org auditor', 'system auditor'];

const only = (allowed: readonly Caller[], yes: unknown, no: unknown = 403) =>
  Object.fromEntries(CALLERS.map((c) => [c, allowed.includes(c) ? yes : no])) as Record<Caller, unknown>;

describe('job template role matrix', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let project: number;
  let inventory: number;
  let credential: number;
  let jt: number;
  let serial = 0;
  const users = {} as Record<Caller, Credentials & { id: number }>;

  /** A template on which every template-level caller holds his role. */
  const freshTemplate = async () => {
    const res = await t.post('/api/v2/job_templates/', { name: `jt-${++serial}`, project, inventory, playbook: 'site.yml' });
    assert.equal(res.status, 201, res.text);
    for (const [caller, roleField] of Object.entries(TEMPLATE_ROLES)) await grant(t, users[caller as Caller], res.body, roleField);
    return res.body.id as number;
  };

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n' });
    const org = await newOrg(t, { name: 'A' });
    orgId = org.id;
    project = (await t.post('/api/v2/projects/', { name: 'p', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    inventory = (await t.post('/api/v2/inventories/', { name: 'inv', organization: orgId })).body.id;
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    credential = (await t.post('/api/v2/credentials/', { name: 'm', organization: orgId, credential_type: machine, inputs: { username: 'u' } })).body.id;
    for (const caller of CALLERS) {
      if (caller === 'superuser') users[caller] = { ...ADMIN, id: (await t.get('/api/v2/users/admin/')).body.id };
      else users[caller] = await t.createUser(caller.replace(/ /g, '-'), caller === 'system auditor' ? { is_system_auditor: true } : {});
      const orgRole = ORG_ROLES[caller];
      if (orgRole) await grant(t, users[caller], org, orgRole);
    }
    // Template admins of the organization still need to use what they put in a template.
    for (const caller of ['org jt admin', 'template admin'] as const) {
      await grant(t, users[caller], `/api/v2/projects/${project}/`, 'use_role');
      await grant(t, users[caller], `/api/v2/inventories/${inventory}/`, 'use_role');
      await grant(t, users[caller], `/api/v2/credentials/${credential}/`, 'use_role');
    }
    jt = await freshTemplate();
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  const rows: { name: string; expected: Record<Caller, unknown>; run: (as: Credentials) => Promise<unknown> }[] = [
    { name: 'GET /job_templates/ lists the template', expected: only(READERS, true, false),
      run: async (as) => (await t.get(`/api/v2/job_templates/?id=${jt}`, { as })).body.count === 1 },
    { name: 'GET /job_templates/{id}/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/job_templates/${jt}/`, { as })).status },
    { name: 'GET /job_templates/{id}/survey_spec/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/job_templates/${jt}/survey_spec/`, { as })).status },
    { name: 'GET /job_templates/{id}/launch/', expected: only(EXECUTORS, 200), run: async (as) => (await t.get(`/api/v2/job_templates/${jt}/launch/`, { as })).status },
    { name: 'user_capabilities.edit', expected: { ...only(READERS, false, null), ...Object.fromEntries(ADMINS.map((c) => [c, true])) } as Record<Caller, unknown>,
      run: async (as) => (await t.get(`/api/v2/job_templates/${jt}/`, { as })).body.summary_fields?.user_capabilities.edit ?? null },
    { name: 'POST /job_templates/ in the organization', expected: only(ORG_LEVEL, 201),
      run: async (as) => (await t.post('/api/v2/job_templates/', { name: `new-${++serial}`, project, inventory, playbook: 'site.yml' }, { as })).status },
    { name: 'PATCH /job_templates/{id}/', expected: only(ADMINS, 200),
      run: async (as) => (await t.patch(`/api/v2/job_templates/${jt}/`, { description: `by ${as.username}` }, { as })).status },
    { name: 'POST /job_templates/{id}/survey_spec/', expected: only(ADMINS, 200),
      run: async (as) => (await t.post(`/api/v2/job_templates/${jt}/survey_spec/`, { name: '', description: '', spec: [{ question_name: 'q', variable: 'v', type: 'text', required: false }] }, { as })).status },
    { name: 'POST /job_templates/{id}/credentials/ attach', expected: only(ADMINS, 204), run: async (as) => {
      const res = await t.post(`/api/v2/job_templates/${jt}/credentials/`, { id: credential }, { as });
      if (res.status === 204) await t.post(`/api/v2/job_templates/${jt}/credentials/`, { id: credential, disassociate: true });
      return res.status;
    } },
    // A new label needs a role in the organization besides the template's admin_role.
    { name: 'POST /job_templates/{id}/labels/ by name', expected: only(ORG_LEVEL, 201), run: async (as) => {
      const res = await t.post(`/api/v2/job_templates/${jt}/labels/`, { name: `l-${++serial}` }, { as });
      return res.status;
    } },
    { name: 'POST /job_templates/{id}/copy/', expected: only(ORG_LEVEL, 201),
      run: async (as) => (await t.post(`/api/v2/job_templates/${jt}/copy/`, { name: `copy-${++serial}` }, { as })).status },
    { name: 'DELETE /job_templates/{id}/', expected: only(ADMINS, 204),
      run: async (as) => (await t.delete(`/api/v2/job_templates/${await freshTemplate()}/`, { as })).status },
  ];

  for (const row of rows) {
    describe(row.name, () => {
      for (const caller of CALLERS) {
        it(caller, async () => assert.equal(await row.run(users[caller]), row.expected[caller]));
      }
    });
  }

  it('needs use_role on the project, the inventory and each credential', async () => {
    const who = await newUser(t);
    await grant(t, who, `/api/v2/organizations/${orgId}/`, 'job_template_admin_role');
    const body = { name: 'x', project, inventory, playbook: 'site.yml' };
    assert.equal((await t.post('/api/v2/job_templates/', body, { as: who })).status, 403);
    await grant(t, who, `/api/v2/projects/${project}/`, 'use_role');
    assert.equal((await t.post('/api/v2/job_templates/', body, { as: who })).status, 403);
    await grant(t, who, `/api/v2/inventories/${inventory}/`, 'use_role');
    const created = await t.post('/api/v2/job_templates/', body, { as: who });
    assert.equal(created.status, 201, created.text);
    const attach = await t.post(`/api/v2/job_templates/${created.body.id}/credentials/`, { id: credential }, { as: who });
    assert.equal(attach.status, 403);
    assert.equal((await t.get(`/api/v2/job_templates/${created.body.id}/credentials/`)).body.count, 0);
  });

  it('a template admin may not move the template to a project he cannot use', async () => {
    const other = (await t.post('/api/v2/projects/', { name: 'p2', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, other);
    const res = await t.patch(`/api/v2/job_templates/${jt}/`, { project: other }, { as: users['template admin'] });
    assert.equal(res.status, 403);
    assert.equal((await t.get(`/api/v2/job_templates/${jt}/`)).body.project, project);
  });
});
