import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, newUser, type Credentials, type TestApp } from './helpers/app.ts';

describe('teams', () => {
  let t: TestApp;
  let adminId: number;
  let orgId: number;
  let otherOrgId: number;

  before(async () => {
    t = await createTestApp();
    adminId = (await t.get('/api/v2/users/admin/')).body.id;
    orgId = (await newOrg(t, { name: 'Engineering' })).id;
    otherOrgId = (await newOrg(t, { name: 'Sales' })).id;
  });
  after(() => t.close());

  const teamMembers = async (teamId: number) =>
    (
      await t.db.query(
        `SELECT u.username FROM role_users ru JOIN roles r ON r.id = ru.role_id JOIN users u ON u.id = ru.user_id
         WHERE r.content_type = 'team' AND r.object_id = $1 AND r.role_field = 'member_role' ORDER BY u.username`,
        [teamId],
      )
    ).map((r) => r.username);

  describe('CRUD', () => {
    let team: any;

    it('POST creates a team: 201 with organization summary, roles and links', async () => {
      const res = await t.post('/api/v2/teams/', { name: 'Platform', description: 'Keeps the lights on', organization: orgId });
      assert.equal(res.status, 201);
      team = res.body;
      assert.equal(team.type, 'team');
      assert.equal(team.url, `/api/v2/teams/${team.id}/`);
      assert.equal(team.name, 'Platform');
      assert.equal(team.description, 'Keeps the lights on');
      assert.equal(team.organization, orgId);
      assert.deepEqual(team.summary_fields.organization, { id: orgId, name: 'Engineering', description: '' });
      assert.deepEqual(team.summary_fields.created_by, { id: adminId, username: 'admin', first_name: '', last_name: '' });
      assert.deepEqual(team.summary_fields.user_capabilities, { edit: true, delete: true });
      assert.deepEqual(Object.keys(team.summary_fields.object_roles).sort(), ['admin_role', 'member_role', 'read_role']);
      assert.equal(team.summary_fields.object_roles.member_role.name, 'Member');
      assert.deepEqual(team.related, {
        organization: `/api/v2/organizations/${orgId}/`,
        created_by: `/api/v2/users/${adminId}/`,
        modified_by: `/api/v2/users/${adminId}/`,
        named_url: '/api/v2/teams/Platform++Engineering/',
        users: `/api/v2/teams/${team.id}/users/`,
        roles: `/api/v2/teams/${team.id}/roles/`,
        projects: `/api/v2/teams/${team.id}/projects/`,
        credentials: `/api/v2/teams/${team.id}/credentials/`,
        object_roles: `/api/v2/teams/${team.id}/object_roles/`,
        access_list: `/api/v2/teams/${team.id}/access_list/`,
        activity_stream: `/api/v2/teams/${team.id}/activity_stream/`,
      });
      const [row] = await t.db.query('SELECT name, description, organization_id, created_by_id FROM teams WHERE id = $1', [team.id]);
      assert.deepEqual(row, { name: 'Platform', description: 'Keeps the lights on', organization_id: orgId, created_by_id: adminId });
      const roles = await t.db.query(`SELECT role_field FROM roles WHERE content_type = 'team' AND object_id = $1 ORDER BY role_field`, [team.id]);
      assert.deepEqual(roles.map((r) => r.role_field), ['admin_role', 'member_role', 'read_role']);
    });

    it('GET answers the same object', async () => {
      const res = await t.get(`/api/v2/teams/${team.id}/`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, team);
    });

    it('PATCH: 200; the organization may be repeated but not changed', async () => {
      const res = await t.patch(`/api/v2/teams/${team.id}/`, { description: 'Patched', organization: orgId });
      assert.equal(res.status, 200);
      assert.equal(res.body.description, 'Patched');
      assert.equal(res.body.name, 'Platform');
      assert.equal((await t.db.query('SELECT description FROM teams WHERE id = $1', [team.id]))[0].description, 'Patched');
      const moved = await t.patch(`/api/v2/teams/${team.id}/`, { organization: otherOrgId });
      assert.deepEqual([moved.status, moved.body], [403, { detail: 'Unable to change organization on a team.' }]);
      const bad = await t.patch(`/api/v2/teams/${team.id}/`, { organization: 987654 });
      assert.equal(bad.status, 403);
      const nulled = await t.patch(`/api/v2/teams/${team.id}/`, { organization: null });
      assert.deepEqual([nulled.status, nulled.body], [400, { organization: ['This field may not be null.'] }]);
      assert.equal((await t.db.query('SELECT organization_id FROM teams WHERE id = $1', [team.id]))[0].organization_id, orgId);
    });

    it('an organization admin may not move a team into another organization', async () => {
      const orgAdmin = await newUser(t, { admin: orgId });
      const res = await t.patch(`/api/v2/teams/${team.id}/`, { organization: otherOrgId }, { as: orgAdmin });
      assert.equal(res.status, 403);
      assert.equal((await t.db.query('SELECT organization_id FROM teams WHERE id = $1', [team.id]))[0].organization_id, orgId);
      assert.equal((await t.patch(`/api/v2/teams/${team.id}/`, { description: 'by org admin' }, { as: orgAdmin })).status, 200);
    });

    it('PUT: 200 with every required field, 400 without', async () => {
      const res = await t.put(`/api/v2/teams/${team.id}/`, { name: 'Platform', organization: orgId });
      assert.equal(res.status, 200);
      assert.equal(res.body.organization, orgId);
      const moved = await t.put(`/api/v2/teams/${team.id}/`, { name: 'Platform', organization: otherOrgId });
      assert.equal(moved.status, 403);
      const missing = await t.put(`/api/v2/teams/${team.id}/`, { name: 'Platform' });
      assert.deepEqual([missing.status, missing.body], [400, { organization: ['This field is required.'] }]);
    });

    it('DELETE: 204, removes the team, its roles and its memberships', async () => {
      const user = await t.createUser('platform-member');
      await t.post(`/api/v2/teams/${team.id}/users/`, { id: user.id });
      const res = await t.delete(`/api/v2/teams/${team.id}/`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await t.get(`/api/v2/teams/${team.id}/`)).status, 404);
      assert.equal((await t.db.query('SELECT 1 FROM teams WHERE id = $1', [team.id])).length, 0);
      assert.equal((await t.db.query(`SELECT 1 FROM roles WHERE content_type = 'team' AND object_id = $1`, [team.id])).length, 0);
      assert.equal((await t.db.query('SELECT 1 FROM role_users WHERE user_id = $1', [user.id])).length, 0);
    });
  });

  describe('users of a team', () => {
    let teamId: number;
    let alice: Credentials & { id: number };
    let bob: Credentials & { id: number };

    before(async () => {
      teamId = (await newTeam(t, orgId)).id;
      alice = await t.createUser('alice');
      bob = await t.createUser('bob');
    });

    it('attach {id} answers 204 and lists the user', async () => {
      const res = await t.post(`/api/v2/teams/${teamId}/users/`, { id: alice.id });
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await t.post(`/api/v2/teams/${teamId}/users/`, { id: String(bob.id) })).status, 204);
      assert.deepEqual(await teamMembers(teamId), ['alice', 'bob']);
      const list = await t.get(`/api/v2/teams/${teamId}/users/?order_by=username`);
      assert.equal(list.status, 200);
      assert.equal(list.body.count, 2);
      assert.deepEqual(list.body.results.map((u: any) => u.username), ['alice', 'bob']);
      assert.equal(list.body.results[0].type, 'user');
      assert.equal((await t.post(`/api/v2/teams/${teamId}/users/`, { id: alice.id })).status, 204, 'attaching twice is fine');
      assert.deepEqual(await teamMembers(teamId), ['alice', 'bob']);
    });

    it('/users/{id}/teams/ reflects membership', async () => {
      const res = await t.get(`/api/v2/users/${alice.id}/teams/`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.results.map((r: any) => r.id), [teamId]);
      assert.equal((await t.get(`/api/v2/users/${alice.id}/teams/`, { as: alice })).body.count, 1);
    });

    it('detach {id, disassociate: true} answers 204', async () => {
      const res = await t.post(`/api/v2/teams/${teamId}/users/`, { id: bob.id, disassociate: true });
      assert.equal(res.status, 204);
      assert.deepEqual(await teamMembers(teamId), ['alice']);
      assert.equal((await t.get(`/api/v2/users/${bob.id}/teams/`)).body.count, 0);
      assert.equal((await t.post(`/api/v2/teams/${teamId}/users/`, { id: bob.id, disassociate: true })).status, 204, 'detaching a non-member');
    });

    it('attaching an unknown user → 404', async () => {
      const res = await t.post(`/api/v2/teams/${teamId}/users/`, { id: 987654 });
      assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }]);
      assert.equal((await t.post(`/api/v2/teams/${teamId}/users/`, { id: 987654, disassociate: true })).status, 404);
      assert.equal((await t.post(`/api/v2/teams/${teamId}/users/`, { id: 99999999999 })).status, 404);
      const bad = await t.post(`/api/v2/teams/${teamId}/users/`, { id: 'alice' });
      assert.deepEqual([bad.status, bad.body], [400, { id: ['A valid integer is required.'] }]);
      const none = await t.request('POST', `/api/v2/teams/${teamId}/users/`);
      assert.deepEqual([none.status, none.body], [400, { username: ['This field is required.'], password: ['This field is required.'] }], 'a body without id creates a user (AWX), and needs its fields');
      assert.equal((await t.post('/api/v2/teams/987654/users/', { id: alice.id })).status, 404);
      assert.deepEqual(await teamMembers(teamId), ['alice']);
    });

    it('a team member may not add members; an organization admin may', async () => {
      const res = await t.post(`/api/v2/teams/${teamId}/users/`, { id: bob.id }, { as: alice });
      assert.equal(res.status, 403);
      const orgAdmin = await newUser(t, { admin: orgId });
      assert.equal((await t.post(`/api/v2/teams/${teamId}/users/`, { id: bob.id }, { as: orgAdmin })).status, 204);
      assert.deepEqual(await teamMembers(teamId), ['alice', 'bob']);
    });
  });

  describe('teams of an organization', () => {
    it('POST /organizations/{id}/teams/ creates a team in that organization', async () => {
      const res = await t.post(`/api/v2/organizations/${orgId}/teams/`, { name: 'Nested', organization: otherOrgId });
      assert.equal(res.status, 201);
      assert.equal(res.body.organization, orgId);
      assert.equal(res.body.summary_fields.organization.name, 'Engineering');
      const list = await t.get(`/api/v2/organizations/${orgId}/teams/?name=Nested`);
      assert.deepEqual(list.body.results.map((r: any) => r.id), [res.body.id]);
      assert.equal((await t.get(`/api/v2/organizations/${otherOrgId}/teams/?name=Nested`)).body.count, 0);
      const dup = await t.post(`/api/v2/organizations/${orgId}/teams/`, { name: 'Nested' });
      assert.deepEqual([dup.status, dup.body], [400, { __all__: ['Team with this Organization and Name already exists.'] }]);
      const missing = await t.post(`/api/v2/organizations/${orgId}/teams/`, {});
      assert.deepEqual([missing.status, missing.body], [400, { name: ['This field is required.'] }]);
    });

    it('an organization admin creates teams in his organization only', async () => {
      const orgAdmin = await newUser(t, { admin: orgId });
      assert.equal((await t.post('/api/v2/teams/', { name: 'Admins Own', organization: orgId }, { as: orgAdmin })).status, 201);
      assert.equal((await t.post(`/api/v2/organizations/${orgId}/teams/`, { name: 'Admins Nested' }, { as: orgAdmin })).status, 201);
      const elsewhere = await t.post('/api/v2/teams/', { name: 'Not Yours', organization: otherOrgId }, { as: orgAdmin });
      assert.equal(elsewhere.status, 403);
      const member = await newUser(t, { member: orgId });
      assert.equal((await t.post('/api/v2/teams/', { name: 'Wannabe', organization: orgId }, { as: member })).status, 403);
      assert.equal((await t.post(`/api/v2/organizations/${orgId}/teams/`, { name: 'Wannabe' }, { as: member })).status, 403);
      assert.equal((await t.db.query(`SELECT 1 FROM teams WHERE name IN ('Not Yours', 'Wannabe')`)).length, 0);
    });
  });

  describe('visibility', () => {
    it("members of an organization see its teams; others don't", async () => {
      const hiddenTeam = (await newTeam(t, otherOrgId)).id;
      const engineer = await newUser(t, { member: orgId });
      const res = await t.get('/api/v2/teams/', { as: engineer });
      assert.equal(res.status, 200);
      const visibleOrgs = new Set(res.body.results.map((r: any) => r.organization));
      assert.deepEqual([...visibleOrgs], [orgId]);
      assert.equal(res.body.count, (await t.get(`/api/v2/teams/?organization=${orgId}`)).body.count);
      assert.equal((await t.get(`/api/v2/teams/${hiddenTeam}/`, { as: engineer })).status, 403);
      assert.equal((await t.get(`/api/v2/teams/${hiddenTeam}/users/`, { as: engineer })).status, 403);
    });

    it('a team member outside the organization sees that team only', async () => {
      const contractor = await newUser(t);
      const salesTeam = (await newTeam(t, otherOrgId, { members: [contractor] })).id;
      const res = await t.get('/api/v2/teams/', { as: contractor });
      assert.deepEqual(res.body.results.map((r: any) => r.id), [salesTeam]);
      assert.equal(res.body.count, 1);
      const detail = await t.get(`/api/v2/teams/${salesTeam}/`, { as: contractor });
      assert.equal(detail.status, 200);
      assert.deepEqual(detail.body.summary_fields.user_capabilities, { edit: false, delete: false });
      assert.equal((await t.patch(`/api/v2/teams/${salesTeam}/`, { name: 'Mine' }, { as: contractor })).status, 403);
      assert.equal((await t.delete(`/api/v2/teams/${salesTeam}/`, { as: contractor })).status, 403);
    });
  });
});
