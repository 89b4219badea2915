import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newTeam, newUser, unique, type TestApp, type User } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const ORG_ROLE_FIELDS = [
  'admin_role', 'execute_role', 'project_admin_role', 'inventory_admin_role', 'credential_admin_role', 'workflow_admin_role',
  'notification_admin_role', 'job_template_admin_role', 'execution_environment_admin_role', 'auditor_role', 'member_role',
  'read_role', 'approval_role',
].sort();

describe('roles', () => {
  let t: TestApp;

  const ok = async (res: Promise<{ status: number; text: string }>, status = 204) => {
    const r = await res;
    assert.equal(r.status, status, r.text);
  };
  const roleOf = async (contentType: string, objectId: number, roleField: string): Promise<number> =>
    (await t.db.query<AnyRow>('SELECT id FROM roles WHERE content_type = $1 AND object_id = $2 AND role_field = $3', [contentType, objectId, roleField]))[0].id;
  const systemRole = async (name: string): Promise<number> => (await t.db.query<AnyRow>('SELECT id FROM roles WHERE singleton_name = $1', [name]))[0].id;
  const holders = async (roleId: number) =>
    (await t.db.query<AnyRow>('SELECT user_id FROM role_users WHERE role_id = $1 ORDER BY user_id', [roleId])).map((r) => r.user_id);
  const teamsGranted = async (roleId: number) =>
    (
      await t.db.query<AnyRow>(
        `SELECT r.object_id FROM role_parents rp JOIN roles r ON r.id = rp.parent_id AND r.content_type = 'team' AND r.role_field = 'member_role'
         WHERE rp.role_id = $1 ORDER BY 1`,
        [roleId],
      )
    ).map((r) => r.object_id);

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  describe('GET /roles/', () => {
    it('a superuser sees every role', async () => {
      await newOrg(t);
      const res = await t.get('/api/v2/roles/?page_size=1');
      assert.equal(res.status, 200);
      const [{ count }] = await t.db.query<AnyRow>('SELECT count(*)::int AS count FROM roles');
      assert.equal(res.body.count, count);
    });

    it('a user without roles sees the two system roles only', async () => {
      const loner = await newUser(t);
      const res = await t.get('/api/v2/roles/', { as: loner });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.results.map((r: any) => r.singleton_name).sort(), ['system_administrator', 'system_auditor']);
      assert.equal(res.body.count, 2);
    });

    it("a user sees the roles he holds and the roles of every object he can see, and no other's", async () => {
      const org = (await newOrg(t)).id;
      const team = (await newTeam(t, org)).id;
      const elsewhere = (await newTeam(t, await newOrg(t))).id;
      const reader = await newUser(t);
      // Holding a team's read_role only: that team (and its roles) become visible; its organization does not.
      await ok(t.post(`/api/v2/roles/${await roleOf('team', team, 'read_role')}/users/`, { id: reader.id }));
      const res = await t.get('/api/v2/roles/?page_size=200', { as: reader });
      const objects = new Set(res.body.results.map((r: any) => `${r.content_type}:${r.object_id}`));
      assert.deepEqual([...objects].sort(), ['null:null', `team:${team}`].sort());
      assert.equal(res.body.count, 2 + 3);
      assert.equal((await t.get(`/api/v2/roles/${await roleOf('team', elsewhere, 'admin_role')}/`, { as: reader })).status, 403);
      assert.equal((await t.get(`/api/v2/roles/${await roleOf('organization', org, 'admin_role')}/`, { as: reader })).status, 403);
      // Filters work on what is visible: content_type and role_field.
      const filtered = await t.get('/api/v2/roles/?content_type=team&role_field=admin_role', { as: reader });
      assert.deepEqual(filtered.body.results.map((r: any) => r.object_id), [team]);
    });

    it("an organization's members see the roles of its teams (they see the teams)", async () => {
      const org = (await newOrg(t)).id;
      const team = (await newTeam(t, org)).id;
      const member = await newUser(t, { member: org });
      const res = await t.get(`/api/v2/roles/?content_type=team&object_id=${team}`, { as: member });
      assert.deepEqual(res.body.results.map((r: any) => r.role_field).sort(), ['admin_role', 'member_role', 'read_role']);
    });
  });

  describe('GET /roles/{id}/', () => {
    it("an object's role: name, description, links and a summary of the object", async () => {
      const org = (await newOrg(t, { name: 'Role Detail Org' })).id;
      const id = await roleOf('organization', org, 'auditor_role');
      const res = await t.get(`/api/v2/roles/${id}/`);
      assert.equal(res.status, 200);
      const role = res.body;
      assert.equal(role.id, id);
      assert.equal(role.type, 'role');
      assert.equal(role.url, `/api/v2/roles/${id}/`);
      assert.equal(role.name, 'Auditor');
      assert.equal(role.description, 'Can view all aspects of the organization');
      assert.deepEqual(role.related, {
        users: `/api/v2/roles/${id}/users/`,
        teams: `/api/v2/roles/${id}/teams/`,
        organization: `/api/v2/organizations/${org}/`,
      });
      assert.deepEqual(role.summary_fields, {
        user_capabilities: {},
        resource_name: 'Role Detail Org',
        resource_type: 'organization',
        resource_type_display_name: 'Organization',
        resource_id: org,
      });
      assert.equal((await t.get(role.related.organization)).body.name, 'Role Detail Org');
    });

    it('a team role names the team', async () => {
      const team = (await newTeam(t, await newOrg(t), { name: 'Named Team' })).id;
      const res = await t.get(`/api/v2/roles/${await roleOf('team', team, 'member_role')}/`);
      assert.equal(res.body.name, 'Member');
      assert.equal(res.body.summary_fields.resource_name, 'Named Team');
      assert.equal(res.body.summary_fields.resource_type_display_name, 'Team');
      assert.equal(res.body.related.team, `/api/v2/teams/${team}/`);
    });

    it('a system role has a name and no object', async () => {
      const res = await t.get(`/api/v2/roles/${await systemRole('system_administrator')}/`);
      assert.equal(res.body.name, 'System Administrator');
      assert.equal(res.body.singleton_name, 'system_administrator');
      assert.deepEqual(Object.keys(res.body.related).sort(), ['teams', 'users']);
      assert.deepEqual(res.body.summary_fields, { user_capabilities: {} });
    });

    it('roles cannot be created, changed or deleted', async () => {
      const id = await systemRole('system_auditor');
      assert.equal((await t.post('/api/v2/roles/', { role_field: 'x' })).status, 405);
      assert.equal((await t.patch(`/api/v2/roles/${id}/`, { role_field: 'x' })).status, 405);
      assert.equal((await t.delete(`/api/v2/roles/${id}/`)).status, 405);
    });
  });

  describe('granting to users, from either side', () => {
    let org: number;
    let auditorRole: number;
    let alice: User;

    before(async () => {
      org = (await newOrg(t)).id;
      auditorRole = await roleOf('organization', org, 'auditor_role');
      alice = await newUser(t);
    });

    it('POST /roles/{id}/users/ {id} grants (204); the user is listed there and the role at /users/{id}/roles/', async () => {
      const res = await t.post(`/api/v2/roles/${auditorRole}/users/`, { id: alice.id });
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.deepEqual(await holders(auditorRole), [alice.id]);
      const users = await t.get(`/api/v2/roles/${auditorRole}/users/`);
      assert.deepEqual(users.body.results.map((r: any) => r.username), [alice.username]);
      const roles = await t.get(`/api/v2/users/${alice.id}/roles/`);
      assert.deepEqual(roles.body.results.map((r: any) => r.id), [auditorRole]);
      assert.equal(roles.body.results[0].summary_fields.resource_id, org);
      // The grant works at once: alice reads the organization.
      assert.equal((await t.get(`/api/v2/organizations/${org}/`, { as: alice })).status, 200);
    });

    it('POST /roles/{id}/users/ {id, disassociate: true} revokes (204), at once', async () => {
      const res = await t.post(`/api/v2/roles/${auditorRole}/users/`, { id: alice.id, disassociate: true });
      assert.equal(res.status, 204);
      assert.deepEqual(await holders(auditorRole), []);
      assert.equal((await t.get(`/api/v2/organizations/${org}/`, { as: alice })).status, 403);
      assert.equal((await t.post(`/api/v2/roles/${auditorRole}/users/`, { id: alice.id, disassociate: true })).status, 204, 'revoking twice is fine');
    });

    it('the same from the user: POST /users/{id}/roles/ {id} and {id, disassociate: true}', async () => {
      await ok(t.post(`/api/v2/users/${alice.id}/roles/`, { id: auditorRole }));
      assert.deepEqual(await holders(auditorRole), [alice.id]);
      assert.deepEqual((await t.get(`/api/v2/roles/${auditorRole}/users/`)).body.results.map((r: any) => r.id), [alice.id]);
      await ok(t.post(`/api/v2/users/${alice.id}/roles/`, { id: auditorRole, disassociate: true }));
      assert.deepEqual(await holders(auditorRole), []);
    });

    it('unknown role or user → 404', async () => {
      assert.equal((await t.post('/api/v2/roles/987654/users/', { id: alice.id })).status, 404);
      assert.equal((await t.post(`/api/v2/roles/${auditorRole}/users/`, { id: 987654 })).status, 404);
      assert.equal((await t.post(`/api/v2/users/${alice.id}/roles/`, { id: 987654 })).status, 404);
    });

    it('only admins of the object grant its roles: 403 otherwise, and nothing is stored', async () => {
      const member = await newUser(t, { username: unique('member'), member: org });
      const auditor = await newUser(t, { username: unique('auditor'), auditor: org });
      const teamAdmin = await newUser(t, { username: unique('team-admin') });
      const team = await newTeam(t, org);
      await grant(t, teamAdmin, team, 'admin_role');
      const target = await newUser(t);
      for (const who of [member, auditor, teamAdmin]) {
        const res = await t.post(`/api/v2/roles/${auditorRole}/users/`, { id: target.id }, { as: who });
        assert.equal(res.status, 403, who.username);
        assert.equal((await t.post(`/api/v2/users/${target.id}/roles/`, { id: auditorRole }, { as: who })).status, 403, who.username);
      }
      assert.ok(!(await holders(auditorRole)).includes(target.id));
      // The team admin does administer his team: he grants its roles (to users he sees: members of his organization).
      await ok(t.post(`/api/v2/organizations/${org}/users/`, { id: teamAdmin.id }));
      await ok(t.post(`/api/v2/roles/${await roleOf('team', team.id, 'read_role')}/users/`, { id: member.id }, { as: teamAdmin }));
    });

    it('an organization admin grants the roles of his organization and of its teams', async () => {
      const orgAdmin = await newUser(t, { admin: org });
      const team = (await newTeam(t, org)).id;
      const target = await newUser(t);
      await ok(t.post(`/api/v2/roles/${auditorRole}/users/`, { id: target.id }, { as: orgAdmin }));
      await ok(t.post(`/api/v2/roles/${await roleOf('team', team, 'admin_role')}/users/`, { id: target.id }, { as: orgAdmin }));
      const otherOrg = (await newOrg(t)).id;
      assert.equal((await t.post(`/api/v2/roles/${await roleOf('organization', otherOrg, 'auditor_role')}/users/`, { id: target.id }, { as: orgAdmin })).status, 403);
    });

    it("an organization's admin and member roles go only to users its admin administers (as AWX)", async () => {
      const orgAdmin = await newUser(t, { admin: org });
      const theirs = await newUser(t, { member: await newOrg(t) });
      const newcomer = await newUser(t);
      const superuser = await newUser(t, { is_superuser: true });
      // A member of another organization, or a superuser: not his to manage.
      assert.equal((await t.post(`/api/v2/organizations/${org}/users/`, { id: theirs.id }, { as: orgAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/organizations/${org}/admins/`, { id: theirs.id }, { as: orgAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/organizations/${org}/users/`, { id: superuser.id }, { as: orgAdmin })).status, 403);
      // A user in no organization yet: yes.
      await ok(t.post(`/api/v2/organizations/${org}/users/`, { id: newcomer.id }, { as: orgAdmin }));
      assert.ok((await holders(await roleOf('organization', org, 'member_role'))).includes(newcomer.id));
      assert.ok(!(await holders(await roleOf('organization', org, 'member_role'))).includes(theirs.id));
      // Roles that are not memberships may go to anyone he can see.
      await ok(t.post(`/api/v2/roles/${auditorRole}/users/`, { id: theirs.id }, { as: orgAdmin }));
    });

    it('granting to a user the caller cannot see → 403', async () => {
      const team = (await newTeam(t, await newOrg(t))).id;
      const teamAdmin = await newUser(t);
      await grant(t, teamAdmin, `/api/v2/teams/${team}/`, 'admin_role');
      const stranger = await newUser(t);
      assert.equal((await t.get(`/api/v2/users/${stranger.id}/`, { as: teamAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/teams/${team}/users/`, { id: stranger.id }, { as: teamAdmin })).status, 403);
      assert.deepEqual(await holders(await roleOf('team', team, 'member_role')), []);
    });
  });

  describe('granting to teams, from either side', () => {
    let org: number;
    let team: number;
    let target: number;
    let member: User;

    before(async () => {
      org = (await newOrg(t)).id;
      member = await newUser(t);
      team = (await newTeam(t, org, { members: [member] })).id;
      target = (await newTeam(t, org)).id;
    });

    it("POST /roles/{id}/teams/ {id} grants; the team's members hold the role at once", async () => {
      const adminOfTarget = await roleOf('team', target, 'admin_role');
      assert.equal((await t.patch(`/api/v2/teams/${target}/`, { description: 'before' }, { as: member })).status, 403);
      await ok(t.post(`/api/v2/roles/${adminOfTarget}/teams/`, { id: team }));
      assert.deepEqual(await teamsGranted(adminOfTarget), [team]);
      assert.deepEqual((await t.get(`/api/v2/roles/${adminOfTarget}/teams/`)).body.results.map((r: any) => r.id), [team]);
      assert.deepEqual((await t.get(`/api/v2/teams/${team}/roles/`)).body.results.map((r: any) => r.id), [adminOfTarget]);
      const res = await t.patch(`/api/v2/teams/${target}/`, { description: 'by a member of the granted team' }, { as: member });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.summary_fields.user_capabilities, { edit: true, delete: true });
    });

    it('removing the user from the team takes the role away at once, and adding him back returns it', async () => {
      await ok(t.post(`/api/v2/teams/${team}/users/`, { id: member.id, disassociate: true }));
      assert.equal((await t.patch(`/api/v2/teams/${target}/`, { description: 'no longer' }, { as: member })).status, 403);
      await ok(t.post(`/api/v2/teams/${team}/users/`, { id: member.id }));
      assert.equal((await t.patch(`/api/v2/teams/${target}/`, { description: 'again' }, { as: member })).status, 200);
    });

    it('revoking the grant takes it away at once: {id, disassociate: true} from either side', async () => {
      const adminOfTarget = await roleOf('team', target, 'admin_role');
      await ok(t.post(`/api/v2/roles/${adminOfTarget}/teams/`, { id: team, disassociate: true }));
      assert.deepEqual(await teamsGranted(adminOfTarget), []);
      assert.equal((await t.patch(`/api/v2/teams/${target}/`, { description: 'revoked' }, { as: member })).status, 403);
      await ok(t.post(`/api/v2/teams/${team}/roles/`, { id: adminOfTarget }));
      assert.equal((await t.patch(`/api/v2/teams/${target}/`, { description: 'granted from the team' }, { as: member })).status, 200);
      await ok(t.post(`/api/v2/teams/${team}/roles/`, { id: adminOfTarget, disassociate: true }));
      assert.equal((await t.patch(`/api/v2/teams/${target}/`, { description: 'revoked from the team' }, { as: member })).status, 403);
    });

    it("an organization's auditor_role granted to a team: its members read the organization", async () => {
      const other = (await newOrg(t)).id;
      const auditorRole = await roleOf('organization', other, 'auditor_role');
      assert.equal((await t.get(`/api/v2/organizations/${other}/`, { as: member })).status, 403);
      await ok(t.post(`/api/v2/teams/${team}/roles/`, { id: auditorRole }));
      assert.equal((await t.get(`/api/v2/organizations/${other}/`, { as: member })).status, 200);
      assert.equal((await t.patch(`/api/v2/organizations/${other}/`, { description: 'x' }, { as: member })).status, 403);
      await ok(t.post(`/api/v2/roles/${auditorRole}/teams/`, { id: team, disassociate: true }));
      assert.equal((await t.get(`/api/v2/organizations/${other}/`, { as: member })).status, 403);
    });

    it("a team's own roles are not listed as granted to it", async () => {
      const roles = await t.get(`/api/v2/teams/${target}/roles/`);
      assert.equal(roles.status, 200);
      assert.deepEqual(roles.body.results, []);
      const teams = await t.get(`/api/v2/roles/${await roleOf('team', target, 'read_role')}/teams/`);
      assert.deepEqual(teams.body.results, []);
    });

    it('system roles cannot be granted to a team (400), from either side', async () => {
      for (const name of ['system_administrator', 'system_auditor']) {
        const role = await systemRole(name);
        const res = await t.post(`/api/v2/roles/${role}/teams/`, { id: team });
        assert.deepEqual([res.status, res.body], [400, { detail: 'System roles cannot be granted to a team.' }]);
        assert.equal((await t.post(`/api/v2/teams/${team}/roles/`, { id: role })).status, 400);
        assert.deepEqual(await teamsGranted(role), []);
      }
    });

    it('a team cannot be granted its own roles (400)', async () => {
      for (const field of ['member_role', 'admin_role', 'read_role']) {
        const role = await roleOf('team', team, field);
        const res = await t.post(`/api/v2/roles/${role}/teams/`, { id: team });
        assert.deepEqual([res.status, res.body], [400, { detail: 'A team cannot be granted its own roles.' }], field);
        assert.equal((await t.post(`/api/v2/teams/${team}/roles/`, { id: role })).status, 400, field);
      }
      assert.deepEqual(await teamsGranted(await roleOf('team', team, 'member_role')), []);
    });

    it("an organization's admin and member roles cannot be granted to a team (400, as AWX)", async () => {
      for (const field of ['admin_role', 'member_role']) {
        const role = await roleOf('organization', org, field);
        const res = await t.post(`/api/v2/roles/${role}/teams/`, { id: team });
        assert.deepEqual([res.status, res.body], [400, { detail: 'You cannot assign an Organization participation role as a child role for a Team.' }]);
        assert.equal((await t.post(`/api/v2/teams/${team}/roles/`, { id: role })).status, 400);
        assert.deepEqual(await teamsGranted(role), []);
      }
    });

    it('a grant that would make a role inherit from itself → 400', async () => {
      const a = (await newTeam(t, org)).id;
      const b = (await newTeam(t, org)).id;
      await ok(t.post(`/api/v2/teams/${a}/roles/`, { id: await roleOf('team', b, 'member_role') }));
      const res = await t.post(`/api/v2/teams/${b}/roles/`, { id: await roleOf('team', a, 'member_role') });
      assert.deepEqual([res.status, res.body], [400, { detail: 'This grant would make the role inherit from itself.' }]);
    });

    it("only admins of the role's object grant it to a team, and they must see the team", async () => {
      const teamAdmin = await newUser(t);
      await grant(t, teamAdmin, `/api/v2/teams/${team}/`, 'admin_role');
      // He administers the team, not the organization: the organization's roles are not his to give.
      const executeRole = await roleOf('organization', org, 'execute_role');
      assert.equal((await t.post(`/api/v2/teams/${team}/roles/`, { id: executeRole }, { as: teamAdmin })).status, 403);
      assert.deepEqual(await teamsGranted(executeRole), []);
      // An organization admin may grant its roles to a team he sees, though he is not its admin.
      const orgAdmin = await newUser(t, { admin: org });
      const foreignTeam = (await newTeam(t, await newOrg(t))).id;
      await ok(t.post(`/api/v2/roles/${executeRole}/teams/`, { id: foreignTeam }, { as: orgAdmin }));
      await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: false });
      try {
        const hidden = (await newTeam(t, await newOrg(t))).id;
        assert.equal((await t.post(`/api/v2/roles/${executeRole}/teams/`, { id: hidden }, { as: orgAdmin })).status, 403);
        assert.deepEqual(await teamsGranted(executeRole), [foreignTeam]);
      } finally {
        await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: true });
      }
    });

    it("deleting a team takes away from its members what was granted to it", async () => {
      const watcher = await newUser(t);
      const doomed = (await newTeam(t, org, { members: [watcher] })).id;
      const auditorRole = await roleOf('organization', org, 'auditor_role');
      await ok(t.post(`/api/v2/teams/${doomed}/roles/`, { id: auditorRole }));
      assert.equal((await t.get(`/api/v2/organizations/${org}/`, { as: watcher })).status, 200);
      await ok(t.delete(`/api/v2/teams/${doomed}/`));
      assert.equal((await t.get(`/api/v2/organizations/${org}/`, { as: watcher })).status, 403);
    });
  });

  describe('inheritance', () => {
    let org: number;
    let team: number;
    let orgAdmin: User;
    let member: User;
    let auditor: User;

    before(async () => {
      org = (await newOrg(t)).id;
      team = (await newTeam(t, org)).id;
      orgAdmin = await newUser(t, { admin: org });
      member = await newUser(t, { member: org });
      auditor = await newUser(t, { auditor: org });
    });

    it('an organization admin is admin of its teams: he changes them and manages their members', async () => {
      assert.equal((await t.patch(`/api/v2/teams/${team}/`, { description: 'by the org admin' }, { as: orgAdmin })).status, 200);
      await ok(t.post(`/api/v2/teams/${team}/users/`, { id: member.id }, { as: orgAdmin }));
      const detail = await t.get(`/api/v2/teams/${team}/`, { as: orgAdmin });
      assert.deepEqual(detail.body.summary_fields.user_capabilities, { edit: true, delete: true });
      // ...and a team made later too.
      const later = (await newTeam(t, org)).id;
      assert.equal((await t.patch(`/api/v2/teams/${later}/`, { description: 'later' }, { as: orgAdmin })).status, 200);
    });

    it('an organization member reads it, without changing it', async () => {
      assert.equal((await t.get(`/api/v2/organizations/${org}/`, { as: member })).status, 200);
      assert.equal((await t.patch(`/api/v2/organizations/${org}/`, { description: 'no' }, { as: member })).status, 403);
      assert.equal((await t.get(`/api/v2/teams/${team}/`, { as: member })).status, 200);
      assert.equal((await t.patch(`/api/v2/teams/${team}/`, { description: 'no' }, { as: member })).status, 403);
    });

    it('an organization auditor reads the teams of the organization (their read_role), even when admins do not see every team', async () => {
      await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: false });
      try {
        const elsewhere = (await newTeam(t, await newOrg(t))).id;
        assert.equal((await t.get(`/api/v2/teams/${team}/`, { as: auditor })).status, 200);
        assert.equal((await t.get(`/api/v2/teams/${elsewhere}/`, { as: auditor })).status, 403);
        assert.equal((await t.patch(`/api/v2/teams/${team}/`, { description: 'no' }, { as: auditor })).status, 403);
        const held = await t.db.query<AnyRow>(
          `SELECT 1 FROM role_ancestors WHERE descendent_id = $1 AND ancestor_id = $2`,
          [await roleOf('team', team, 'read_role'), await roleOf('organization', org, 'auditor_role')],
        );
        assert.equal(held.length, 1);
      } finally {
        await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: true });
      }
    });

    it('the organization admin holds every role of the organization but the auditor role', async () => {
      const res = await t.get(`/api/v2/users/${orgAdmin.id}/roles/`);
      assert.deepEqual(res.body.results.map((r: any) => r.role_field), ['admin_role']);
      const implied = await t.db.query<AnyRow>(
        `SELECT r.role_field FROM roles r JOIN role_ancestors ra ON ra.descendent_id = r.id
         WHERE r.content_type = 'organization' AND r.object_id = $1 AND ra.ancestor_id = $2 ORDER BY 1`,
        [org, await roleOf('organization', org, 'admin_role')],
      );
      assert.deepEqual(implied.map((r) => r.role_field), ORG_ROLE_FIELDS.filter((f) => f !== 'auditor_role'));
    });
  });

  describe('system roles', () => {
    it('granting system_administrator through /roles/{id}/users/ makes a superuser; revoking unmakes him', async () => {
      const role = await systemRole('system_administrator');
      const user = await newUser(t);
      await ok(t.post(`/api/v2/roles/${role}/users/`, { id: user.id }));
      assert.equal((await t.get(`/api/v2/users/${user.id}/`)).body.is_superuser, true);
      assert.equal((await t.post('/api/v2/organizations/', { name: unique('by-promoted') }, { as: user })).status, 201);
      await ok(t.post(`/api/v2/roles/${role}/users/`, { id: user.id, disassociate: true }));
      assert.equal((await t.get(`/api/v2/users/${user.id}/`)).body.is_superuser, false);
      assert.equal((await t.post('/api/v2/organizations/', { name: unique('by-demoted') }, { as: user })).status, 403);
    });

    it('system_auditor through /users/{id}/roles/ sets is_system_auditor', async () => {
      const role = await systemRole('system_auditor');
      const user = await newUser(t);
      await ok(t.post(`/api/v2/users/${user.id}/roles/`, { id: role }));
      assert.equal((await t.get(`/api/v2/users/${user.id}/`)).body.is_system_auditor, true);
      assert.equal((await t.get('/api/v2/organizations/', { as: user })).body.count, (await t.get('/api/v2/organizations/')).body.count);
      await ok(t.post(`/api/v2/users/${user.id}/roles/`, { id: role, disassociate: true }));
      assert.equal((await t.get(`/api/v2/users/${user.id}/`)).body.is_system_auditor, false);
    });

    it('only a superuser grants system roles: an organization admin gets 403', async () => {
      const orgAdmin = await newUser(t, { admin: await newOrg(t) });
      const newcomer = await newUser(t);
      for (const name of ['system_administrator', 'system_auditor']) {
        const role = await systemRole(name);
        assert.equal((await t.post(`/api/v2/roles/${role}/users/`, { id: newcomer.id }, { as: orgAdmin })).status, 403);
        assert.equal((await t.post(`/api/v2/roles/${role}/users/`, { id: orgAdmin.id }, { as: orgAdmin })).status, 403);
        assert.equal((await t.post(`/api/v2/users/${newcomer.id}/roles/`, { id: role }, { as: orgAdmin })).status, 403);
      }
      const [row] = await t.db.query<AnyRow>('SELECT is_superuser, is_system_auditor FROM users WHERE id = $1', [newcomer.id]);
      assert.deepEqual(row, { is_superuser: false, is_system_auditor: false });
    });

    it('PATCH is_superuser / is_system_auditor adds and removes the role holder', async () => {
      const user = await newUser(t);
      const admins = await systemRole('system_administrator');
      const auditors = await systemRole('system_auditor');
      const listed = async (role: number) => (await t.get(`/api/v2/roles/${role}/users/?page_size=200`)).body.results.map((r: any) => r.id);
      await ok(t.patch(`/api/v2/users/${user.id}/`, { is_superuser: true, is_system_auditor: true }), 200);
      assert.ok((await listed(admins)).includes(user.id));
      assert.ok((await listed(auditors)).includes(user.id));
      await ok(t.patch(`/api/v2/users/${user.id}/`, { is_superuser: false }), 200);
      assert.ok(!(await listed(admins)).includes(user.id));
      assert.ok((await listed(auditors)).includes(user.id));
      await ok(t.patch(`/api/v2/users/${user.id}/`, { is_system_auditor: false }), 200);
      assert.ok(!(await listed(auditors)).includes(user.id));
    });
  });

  describe('records', () => {
    it('grants and revocations write audit events (rbac.role_granted / rbac.role_revoked)', async () => {
      const org = (await newOrg(t)).id;
      const team = (await newTeam(t, org)).id;
      const user = await newUser(t);
      const role = await roleOf('organization', org, 'auditor_role');
      const [{ max }] = await t.db.query<AnyRow>('SELECT coalesce(max(id), 0)::int AS max FROM audit_events');
      await ok(t.post(`/api/v2/roles/${role}/users/`, { id: user.id }));
      await ok(t.post(`/api/v2/roles/${role}/users/`, { id: user.id })); // no change: no event
      await ok(t.post(`/api/v2/teams/${team}/roles/`, { id: role }));
      await ok(t.post(`/api/v2/users/${user.id}/roles/`, { id: role, disassociate: true }));
      await ok(t.post(`/api/v2/roles/${role}/teams/`, { id: team, disassociate: true }));
      await ok(t.patch(`/api/v2/users/${user.id}/`, { is_superuser: true }), 200);
      await ok(t.patch(`/api/v2/users/${user.id}/`, { is_superuser: false }), 200);
      const events = await t.db.query<AnyRow>(
        `SELECT event_type, outcome, actor_username, target_type, target_id, detail FROM audit_events
         WHERE id > $1 AND event_type LIKE 'rbac.%' ORDER BY id`,
        [max],
      );
      const detail = { role_id: role, role_field: 'auditor_role', content_type: 'organization', object_id: org };
      const system = { role_id: await systemRole('system_administrator'), role_field: 'system_administrator', content_type: 'system', object_id: null };
      assert.deepEqual(events, [
        { event_type: 'rbac.role_granted', outcome: 'success', actor_username: 'admin', target_type: 'user', target_id: user.id, detail },
        { event_type: 'rbac.role_granted', outcome: 'success', actor_username: 'admin', target_type: 'team', target_id: team, detail },
        { event_type: 'rbac.role_revoked', outcome: 'success', actor_username: 'admin', target_type: 'user', target_id: user.id, detail },
        { event_type: 'rbac.role_revoked', outcome: 'success', actor_username: 'admin', target_type: 'team', target_id: team, detail },
        { event_type: 'rbac.role_granted', outcome: 'success', actor_username: 'admin', target_type: 'user', target_id: user.id, detail: system },
        { event_type: 'rbac.role_revoked', outcome: 'success', actor_username: 'admin', target_type: 'user', target_id: user.id, detail: system },
      ]);
    });

    it('a refused grant writes nothing', async () => {
      const org = (await newOrg(t)).id;
      const member = await newUser(t, { member: org });
      const [{ max }] = await t.db.query<AnyRow>('SELECT coalesce(max(id), 0)::int AS max FROM audit_events');
      const [{ max: maxActivity }] = await t.db.query<AnyRow>('SELECT coalesce(max(id), 0)::int AS max FROM activity_stream');
      const role = await roleOf('organization', org, 'auditor_role');
      assert.equal((await t.post(`/api/v2/roles/${role}/users/`, { id: member.id }, { as: member })).status, 403);
      assert.deepEqual(await t.db.query<AnyRow>('SELECT 1 FROM audit_events WHERE id > $1', [max]), []);
      assert.deepEqual(await t.db.query<AnyRow>('SELECT 1 FROM activity_stream WHERE id > $1', [maxActivity]), []);
      assert.deepEqual(await holders(role), []);
    });

    it('the activity stream records associate and disassociate, from each side', async () => {
      const org = (await newOrg(t)).id;
      const team = (await newTeam(t, org)).id;
      const user = await newUser(t);
      const role = await roleOf('organization', org, 'auditor_role');
      const [{ max }] = await t.db.query<AnyRow>('SELECT coalesce(max(id), 0)::int AS max FROM activity_stream');
      await ok(t.post(`/api/v2/roles/${role}/users/`, { id: user.id }));
      await ok(t.post(`/api/v2/users/${user.id}/roles/`, { id: role, disassociate: true }));
      await ok(t.post(`/api/v2/organizations/${org}/users/`, { id: user.id }));
      await ok(t.post(`/api/v2/teams/${team}/roles/`, { id: role }));
      await ok(t.post(`/api/v2/roles/${role}/teams/`, { id: team, disassociate: true }));
      const rows = await t.db.query<AnyRow>(
        `SELECT operation, object1, object1_id, object2, object2_id, object_association FROM activity_stream WHERE id > $1 ORDER BY id`,
        [max],
      );
      assert.deepEqual(rows, [
        { operation: 'associate', object1: 'role', object1_id: role, object2: 'user', object2_id: user.id, object_association: 'members' },
        { operation: 'disassociate', object1: 'user', object1_id: user.id, object2: 'role', object2_id: role, object_association: 'roles' },
        { operation: 'associate', object1: 'organization', object1_id: org, object2: 'user', object2_id: user.id, object_association: 'member_role' },
        { operation: 'associate', object1: 'team', object1_id: team, object2: 'role', object2_id: role, object_association: 'roles' },
        { operation: 'disassociate', object1: 'role', object1_id: role, object2: 'team', object2_id: team, object_association: 'parents' },
      ]);
      const stream = await t.get(`/api/v2/users/${user.id}/activity_stream/`);
      assert.equal(stream.body.count, 4, 'the user creation and his three links');
    });
  });

  describe("an object's roles", () => {
    let org: number;
    let member: User;
    let orgAdmin: User;

    before(async () => {
      org = (await newOrg(t)).id;
      member = await newUser(t, { member: org });
      orgAdmin = await newUser(t, { admin: org });
    });

    it('/organizations/{id}/object_roles/ lists its 13 roles, to whoever sees it', async () => {
      for (const who of [undefined, member, orgAdmin]) {
        const res = await t.get(`/api/v2/organizations/${org}/object_roles/?page_size=50`, who ? { as: who } : {});
        assert.equal(res.status, 200);
        assert.equal(res.body.count, 13);
        assert.deepEqual(res.body.results.map((r: any) => r.role_field).sort(), ORG_ROLE_FIELDS);
        assert.ok(res.body.results.every((r: any) => r.summary_fields.resource_id === org && r.content_type === 'organization'));
      }
      const outsider = await newUser(t);
      assert.equal((await t.get(`/api/v2/organizations/${org}/object_roles/`, { as: outsider })).status, 403);
      const team = (await newTeam(t, org)).id;
      const teamRoles = await t.get(`/api/v2/teams/${team}/object_roles/`);
      assert.deepEqual(teamRoles.body.results.map((r: any) => r.name).sort(), ['Admin', 'Member', 'Read']);
    });

    it('summary_fields.object_roles: the same ids, names and descriptions for every caller', async () => {
      const expected: Record<string, unknown> = {};
      for (const field of ORG_ROLE_FIELDS) {
        const role = (await t.get(`/api/v2/roles/${await roleOf('organization', org, field)}/`)).body;
        expected[field] = { id: role.id, name: role.name, description: role.description };
      }
      for (const who of [undefined, member, orgAdmin]) {
        const res = await t.get(`/api/v2/organizations/${org}/`, who ? { as: who } : {});
        assert.deepEqual(res.body.summary_fields.object_roles, expected);
      }
    });

    it('user_capabilities follow the caller: member no, admin yes, superuser yes, in lists as in details', async () => {
      const caps = async (who?: User) => (await t.get(`/api/v2/organizations/${org}/`, who ? { as: who } : {})).body.summary_fields.user_capabilities;
      assert.deepEqual(await caps(member), { edit: false, delete: false });
      assert.deepEqual(await caps(orgAdmin), { edit: true, delete: true });
      assert.deepEqual(await caps(), { edit: true, delete: true });
      // In a list, each row answers for itself.
      const other = (await newOrg(t)).id;
      await ok(t.post(`/api/v2/organizations/${other}/users/`, { id: orgAdmin.id }));
      const list = await t.get(`/api/v2/organizations/?id__in=${org},${other}&order_by=id`, { as: orgAdmin });
      assert.deepEqual(
        list.body.results.map((r: any) => [r.id, r.summary_fields.user_capabilities]),
        [
          [org, { edit: true, delete: true }],
          [other, { edit: false, delete: false }],
        ],
      );
    });

    it('user_capabilities of users in a list: oneself, administered members, others', async () => {
      const plain = await newUser(t, { member: org });
      const dual = await newUser(t, { member: [org, await newOrg(t)] });
      const ids = [orgAdmin.id, member.id, plain.id, dual.id];
      const list = await t.get(`/api/v2/users/?id__in=${ids.join(',')}&order_by=id`, { as: orgAdmin });
      assert.deepEqual(
        list.body.results.map((r: any) => [r.id, r.summary_fields.user_capabilities]),
        (
          [
            [orgAdmin.id, { edit: true, delete: false }],
            [member.id, { edit: true, delete: true }],
            [plain.id, { edit: true, delete: true }],
            [dual.id, { edit: false, delete: false }],
          ] as [number, unknown][]
        ).sort((a, b) => a[0] - b[0]),
      );
      // The same answers one by one.
      for (const row of list.body.results) {
        const detail = await t.get(`/api/v2/users/${row.id}/`, { as: orgAdmin });
        assert.deepEqual(detail.body.summary_fields.user_capabilities, row.summary_fields.user_capabilities);
      }
    });
  });
});
