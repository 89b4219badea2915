import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, newUser, type Credentials, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const ROLE_FIELDS = [
  'admin_role', 'execute_role', 'project_admin_role', 'inventory_admin_role', 'credential_admin_role', 'workflow_admin_role',
  'notification_admin_role', 'job_template_admin_role', 'execution_environment_admin_role', 'auditor_role', 'member_role',
  'read_role', 'approval_role',
].sort();

describe('organizations', () => {
  let t: TestApp;
  let adminId: number;

  before(async () => {
    t = await createTestApp();
    adminId = (await t.get('/api/v2/users/admin/')).body.id;
  });
  after(() => t.close());

  const members = async (orgId: number, roleField: string) =>
    (
      await t.db.query<AnyRow>(
        `SELECT u.username FROM role_users ru JOIN roles r ON r.id = ru.role_id JOIN users u ON u.id = ru.user_id
         WHERE r.content_type = 'organization' AND r.object_id = $1 AND r.role_field = $2 ORDER BY u.username`,
        [orgId, roleField],
      )
    ).map((r) => r.username);

  describe('CRUD', () => {
    let org: any;

    it('POST creates an organization: 201 with the full object', async () => {
      const res = await t.post('/api/v2/organizations/', { name: 'Acme', description: 'Rockets', max_hosts: 5 });
      assert.equal(res.status, 201);
      org = res.body;
      assert.equal(typeof org.id, 'number');
      assert.equal(org.type, 'organization');
      assert.equal(org.url, `/api/v2/organizations/${org.id}/`);
      assert.equal(org.name, 'Acme');
      assert.equal(org.description, 'Rockets');
      assert.equal(org.max_hosts, 5);
      assert.equal(org.policy_enforcement, 'none');
      assert.match(org.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.equal(org.modified, org.created);
      assert.deepEqual(Object.keys(org).slice(0, 7), ['id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified']);
      const [row] = await t.db.query<AnyRow>('SELECT * FROM organizations WHERE id = $1', [org.id]);
      assert.equal(row.name, 'Acme');
      assert.equal(row.description, 'Rockets');
      assert.equal(row.max_hosts, 5);
      assert.equal(row.policy_enforcement, 'none');
      assert.equal(row.created_by_id, adminId);
      assert.equal(row.modified_by_id, adminId);
    });

    it('related links', async () => {
      const base = `/api/v2/organizations/${org.id}/`;
      assert.deepEqual(org.related, {
        created_by: `/api/v2/users/${adminId}/`,
        modified_by: `/api/v2/users/${adminId}/`,
        named_url: '/api/v2/organizations/Acme/',
        users: `${base}users/`,
        admins: `${base}admins/`,
        teams: `${base}teams/`,
        projects: `${base}projects/`,
        inventories: `${base}inventories/`,
        job_templates: `${base}job_templates/`,
        workflow_job_templates: `${base}workflow_job_templates/`,
        credentials: `${base}credentials/`,
        execution_environments: `${base}execution_environments/`,
        applications: `${base}applications/`,
        galaxy_credentials: `${base}galaxy_credentials/`,
        notification_templates: `${base}notification_templates/`,
        notification_templates_started: `${base}notification_templates_started/`,
        notification_templates_success: `${base}notification_templates_success/`,
        notification_templates_error: `${base}notification_templates_error/`,
        notification_templates_approvals: `${base}notification_templates_approvals/`,
        object_roles: `${base}object_roles/`,
        access_list: `${base}access_list/`,
        activity_stream: `${base}activity_stream/`,
        instance_groups: `${base}instance_groups/`,
      });
      for (const url of Object.values(org.related) as string[]) assert.equal((await t.get(url)).status, 200, url);
    });

    it('summary_fields: created_by, modified_by, object_roles, user_capabilities', async () => {
      const summary = org.summary_fields;
      const adminSummary = { id: adminId, username: 'admin', first_name: '', last_name: '' };
      assert.deepEqual(summary.created_by, adminSummary);
      assert.deepEqual(summary.modified_by, adminSummary);
      assert.deepEqual(summary.user_capabilities, { edit: true, delete: true });
      assert.deepEqual(Object.keys(summary.object_roles).sort(), ROLE_FIELDS);
      const roles = await t.db.query<AnyRow>(`SELECT id, role_field FROM roles WHERE content_type = 'organization' AND object_id = $1`, [org.id]);
      assert.equal(roles.length, ROLE_FIELDS.length);
      for (const role of roles) {
        const entry = summary.object_roles[role.role_field];
        assert.equal(entry.id, role.id);
        assert.equal(typeof entry.name, 'string');
        assert.equal(typeof entry.description, 'string');
      }
      assert.deepEqual(summary.object_roles.admin_role, {
        id: roles.find((r) => r.role_field === 'admin_role')!.id,
        name: 'Admin',
        description: 'Can manage all aspects of the organization',
      });
    });

    it('GET answers the same object', async () => {
      const res = await t.get(`/api/v2/organizations/${org.id}/`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, org);
      const list = await t.get('/api/v2/organizations/?name=Acme');
      assert.deepEqual(list.body.results, [org]);
    });

    it('PATCH changes only what it is given: 200', async () => {
      const editor = await t.createUser('editor', { is_superuser: true });
      const res = await t.patch(`/api/v2/organizations/${org.id}/`, { description: 'Anvils' }, { as: editor });
      assert.equal(res.status, 200);
      assert.equal(res.body.description, 'Anvils');
      assert.equal(res.body.name, 'Acme');
      assert.equal(res.body.max_hosts, 5);
      assert.ok(res.body.modified >= org.modified);
      assert.deepEqual(res.body.summary_fields.modified_by, { id: editor.id, username: 'editor', first_name: '', last_name: '' });
      assert.equal(res.body.summary_fields.created_by.id, adminId);
      const [row] = await t.db.query<AnyRow>('SELECT description, modified_by_id, created_by_id FROM organizations WHERE id = $1', [org.id]);
      assert.deepEqual(row, { description: 'Anvils', modified_by_id: editor.id, created_by_id: adminId });
    });

    it('PUT replaces the object: 200, and needs the required fields', async () => {
      const res = await t.put(`/api/v2/organizations/${org.id}/`, { name: 'Acme Corp', description: 'Everything', max_hosts: 7, policy_enforcement: 'warn' });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Acme Corp');
      assert.equal(res.body.max_hosts, 7);
      assert.equal(res.body.policy_enforcement, 'warn');
      const missing = await t.put(`/api/v2/organizations/${org.id}/`, { description: 'no name' });
      assert.deepEqual([missing.status, missing.body], [400, { name: ['This field is required.'] }]);
      assert.equal((await t.get(`/api/v2/organizations/${org.id}/`)).body.description, 'Everything');
    });

    it('read-only fields in a body are ignored', async () => {
      const res = await t.post('/api/v2/organizations/', {
        name: 'ReadOnly',
        id: 99999,
        type: 'team',
        created: '2001-01-01T00:00:00Z',
        created_by: 12345,
        url: '/elsewhere/',
        unknown_field: 'ignored',
      });
      assert.equal(res.status, 201);
      assert.notEqual(res.body.id, 99999);
      assert.equal(res.body.type, 'organization');
      assert.notEqual(res.body.created, '2001-01-01T00:00:00.000Z');
      assert.equal(res.body.summary_fields.created_by.id, adminId);
      const patched = await t.patch(`/api/v2/organizations/${res.body.id}/`, { id: 1, modified: '2001-01-01T00:00:00Z' });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.id, res.body.id);
    });

    it('DELETE answers 204 and removes the organization and its roles', async () => {
      const user = await newUser(t, { member: org });
      const res = await t.delete(`/api/v2/organizations/${org.id}/`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.deepEqual((await t.get(`/api/v2/organizations/${org.id}/`)).body, { detail: 'Not found.' });
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM organizations WHERE id = $1', [org.id])).length, 0);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM roles WHERE content_type = 'organization' AND object_id = $1`, [org.id])).length, 0);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM role_users WHERE user_id = $1`, [user.id])).length, 0);
      assert.equal((await t.delete(`/api/v2/organizations/${org.id}/`)).status, 404);
    });
  });

  describe('policy_enforcement', () => {
    it('defaults to none and accepts none, warn and enforce', async () => {
      const created = await t.post('/api/v2/organizations/', { name: 'Policy' });
      assert.equal(created.body.policy_enforcement, 'none');
      for (const value of ['warn', 'enforce', 'none']) {
        const res = await t.patch(`/api/v2/organizations/${created.body.id}/`, { policy_enforcement: value });
        assert.equal(res.status, 200);
        assert.equal(res.body.policy_enforcement, value);
        assert.equal((await t.db.query<AnyRow>('SELECT policy_enforcement FROM organizations WHERE id = $1', [created.body.id]))[0].policy_enforcement, value);
      }
      const bad = await t.patch(`/api/v2/organizations/${created.body.id}/`, { policy_enforcement: 'Enforce' });
      assert.deepEqual([bad.status, bad.body], [400, { policy_enforcement: ['"Enforce" is not a valid choice.'] }]);
      const options = await t.request('OPTIONS', '/api/v2/organizations/');
      assert.deepEqual(options.body.actions.POST.policy_enforcement.choices.map(([v]: [string]) => v), ['none', 'warn', 'enforce']);
    });
  });

  describe('membership', () => {
    let orgId: number;
    let user: Credentials & { id: number };

    before(async () => {
      orgId = (await newOrg(t, { name: 'Members' })).id;
      user = await t.createUser('joiner');
    });

    it('users: attach and detach answer 204', async () => {
      const attach = await t.post(`/api/v2/organizations/${orgId}/users/`, { id: user.id });
      assert.equal(attach.status, 204);
      assert.equal(attach.text, '');
      assert.deepEqual(await members(orgId, 'member_role'), ['joiner']);
      const again = await t.post(`/api/v2/organizations/${orgId}/users/`, { id: user.id });
      assert.equal(again.status, 204);
      const list = await t.get(`/api/v2/organizations/${orgId}/users/`);
      assert.deepEqual(list.body.results.map((u: any) => u.username), ['joiner']);
      assert.deepEqual((await t.get(`/api/v2/users/${user.id}/organizations/`)).body.results.map((o: any) => o.name), ['Members']);
      const detach = await t.post(`/api/v2/organizations/${orgId}/users/`, { id: user.id, disassociate: true });
      assert.equal(detach.status, 204);
      assert.deepEqual(await members(orgId, 'member_role'), []);
      assert.equal((await t.get(`/api/v2/organizations/${orgId}/users/`)).body.count, 0);
      assert.equal((await t.get(`/api/v2/users/${user.id}/organizations/`)).body.count, 0);
    });

    it('admins: attach and detach answer 204', async () => {
      assert.equal((await t.post(`/api/v2/organizations/${orgId}/admins/`, { id: user.id })).status, 204);
      assert.deepEqual(await members(orgId, 'admin_role'), ['joiner']);
      assert.deepEqual((await t.get(`/api/v2/organizations/${orgId}/admins/`)).body.results.map((u: any) => u.username), ['joiner']);
      assert.deepEqual((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.results.map((o: any) => o.name), ['Members']);
      const asAdmin = await t.patch(`/api/v2/organizations/${orgId}/`, { description: 'by its admin' }, { as: user });
      assert.equal(asAdmin.status, 200);
      // As AWX: whoever administers an organization may also delete it.
      assert.deepEqual(asAdmin.body.summary_fields.user_capabilities, { edit: true, delete: true });
      assert.equal((await t.post(`/api/v2/organizations/${orgId}/admins/`, { id: user.id, disassociate: 'true' })).status, 204);
      assert.deepEqual(await members(orgId, 'admin_role'), []);
      assert.equal((await t.patch(`/api/v2/organizations/${orgId}/`, { description: 'no longer' }, { as: user })).status, 403);
    });

    it('attaching an unknown user is 404 and a bad id 400', async () => {
      const res = await t.post(`/api/v2/organizations/${orgId}/users/`, { id: 987654 });
      assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }]);
      const bad = await t.post(`/api/v2/organizations/${orgId}/users/`, { id: 'abc' });
      assert.deepEqual([bad.status, bad.body], [400, { id: ['A valid integer is required.'] }]);
      const none = await t.post(`/api/v2/organizations/${orgId}/users/`, {});
      assert.equal(none.status, 400);
    });

    it('a member may not add members', async () => {
      const other = await t.createUser('outsider');
      await t.post(`/api/v2/organizations/${orgId}/users/`, { id: user.id });
      const res = await t.post(`/api/v2/organizations/${orgId}/users/`, { id: other.id }, { as: user });
      assert.equal(res.status, 403);
      assert.deepEqual(await members(orgId, 'member_role'), ['joiner']);
    });
  });

  describe('deleting an organization', () => {
    it('removes its teams with their roles and memberships', async () => {
      const orgId = (await newOrg(t)).id;
      const keepOrgId = (await newOrg(t)).id;
      const user = await newUser(t);
      const teamIds = [(await newTeam(t, orgId, { name: 'red', members: [user] })).id, (await newTeam(t, orgId, { name: 'blue' })).id];
      const keptTeam = (await newTeam(t, keepOrgId, { name: 'red', members: [user] })).id;

      assert.equal((await t.delete(`/api/v2/organizations/${orgId}/`)).status, 204);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM teams WHERE organization_id = $1', [orgId])).length, 0);
      for (const id of teamIds) assert.equal((await t.get(`/api/v2/teams/${id}/`)).status, 404);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM roles WHERE content_type = 'team' AND object_id = ANY($1::integer[])`, [teamIds])).length, 0);
      assert.deepEqual((await t.get(`/api/v2/users/${user.id}/teams/`)).body.results.map((r: any) => r.id), [keptTeam]);
      assert.equal((await t.get(`/api/v2/teams/${keptTeam}/`)).status, 200);
    });
  });

  describe('visibility', () => {
    let plain: Credentials & { id: number };
    let mineId: number;
    let theirsId: number;

    before(async () => {
      mineId = (await newOrg(t, { name: 'Mine' })).id;
      theirsId = (await newOrg(t, { name: 'Theirs' })).id;
      plain = await newUser(t, { member: mineId });
    });

    it('a plain user lists only the organizations he belongs to', async () => {
      const res = await t.get('/api/v2/organizations/', { as: plain });
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      assert.deepEqual(res.body.results.map((o: any) => o.name), ['Mine']);
      assert.deepEqual(res.body.results[0].summary_fields.user_capabilities, { edit: false, delete: false });
      assert.equal((await t.get('/api/v2/organizations/?name=Theirs', { as: plain })).body.count, 0);
    });

    it("another organization's detail and sub-lists are 403", async () => {
      for (const url of [`/api/v2/organizations/${theirsId}/`, '/api/v2/organizations/Theirs/', `/api/v2/organizations/${theirsId}/users/`, `/api/v2/organizations/${theirsId}/teams/`]) {
        const res = await t.get(url, { as: plain });
        assert.deepEqual([res.status, res.body], [403, { detail: 'You do not have permission to perform this action.' }], url);
      }
      assert.equal((await t.patch(`/api/v2/organizations/${theirsId}/`, { description: 'x' }, { as: plain })).status, 403);
      assert.equal((await t.delete(`/api/v2/organizations/${theirsId}/`, { as: plain })).status, 403);
      assert.equal((await t.get(`/api/v2/organizations/${theirsId}/`)).body.description, '');
    });

    it('a member reads but may not change his organization', async () => {
      assert.equal((await t.get(`/api/v2/organizations/${mineId}/`, { as: plain })).status, 200);
      const res = await t.patch(`/api/v2/organizations/${mineId}/`, { description: 'mine now' }, { as: plain });
      assert.equal(res.status, 403);
      assert.equal((await t.db.query<AnyRow>('SELECT description FROM organizations WHERE id = $1', [mineId]))[0].description, '');
    });

    it('a system auditor sees every organization but changes none', async () => {
      const auditor = await newUser(t, { is_system_auditor: true });
      const total = (await t.get('/api/v2/organizations/')).body.count;
      assert.equal((await t.get('/api/v2/organizations/', { as: auditor })).body.count, total);
      assert.equal((await t.get(`/api/v2/organizations/${theirsId}/`, { as: auditor })).status, 200);
      assert.equal((await t.patch(`/api/v2/organizations/${theirsId}/`, { description: 'x' }, { as: auditor })).status, 403);
    });
  });

  it('deleting an organization deletes its inventories, credentials and execution environments with their roles', async () => {
    const org = (await newOrg(t)).id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'inv', organization: org })).body.id;
    const host = (await t.post('/api/v2/hosts/', { name: 'h1', inventory })).body.id;
    const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    const credential = (await t.post('/api/v2/credentials/', { name: 'c', organization: org, credential_type: scm, inputs: { username: 'u' } })).body.id;
    const ee = (await t.post('/api/v2/execution_environments/', { name: 'org-ee', image: 'quay.io/x/y:1', organization: org })).body.id;
    assert.equal((await t.delete(`/api/v2/organizations/${org}/`)).status, 204);
    for (const [url, type, id] of [['inventories', 'inventory', inventory], ['hosts', 'host', host], ['credentials', 'credential', credential], ['execution_environments', 'execution_environment', ee]] as const) {
      assert.equal((await t.get(`/api/v2/${url}/${id}/`)).status, 404, url);
      assert.equal((await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM roles WHERE content_type = $1 AND object_id = $2', [type, id]))[0].n, 0, type);
    }
    const deletions = (await t.get(`/api/v2/activity_stream/?operation=delete&object1=inventory&object1_id=${inventory}`)).body;
    assert.equal(deletions.count, 1);
  });
});
