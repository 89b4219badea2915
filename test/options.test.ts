import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, newUser, type TestApp, type User } from './helpers/app.ts';

describe('OPTIONS', () => {
  let t: TestApp;
  let member: User;
  let orgId: number;
  let otherOrgId: number;
  let teamId: number;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t)).id;
    otherOrgId = (await newOrg(t)).id;
    teamId = (await newTeam(t, orgId)).id;
    member = await newUser(t, { member: orgId });
  });
  after(() => t.close());

  describe('on a list', () => {
    it('describes the resource', async () => {
      const res = await t.request('OPTIONS', '/api/v2/organizations/');
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Organization List');
      assert.equal(typeof res.body.description, 'string');
      assert.ok(res.body.description.length > 0);
      assert.deepEqual(res.body.renders, ['application/json', 'text/html']);
      assert.deepEqual(res.body.parses, ['application/json']);
      assert.deepEqual(res.body.search_fields, ['name', 'description']);
      assert.ok(res.body.related_search_fields.includes('teams__search'));
      assert.ok(res.body.related_search_fields.includes('created_by__search'));
      assert.ok(res.body.object_roles.includes('admin_role'));
      assert.ok(res.body.object_roles.includes('member_role'));
    });

    it('GET metadata carries type, label, help text, filterable and choices', async () => {
      const { body } = await t.request('OPTIONS', '/api/v2/organizations/');
      const get = body.actions.GET;
      assert.deepEqual(get.id, { type: 'integer', label: 'ID', help_text: 'Database ID for this object.', filterable: true });
      assert.deepEqual(get.type.choices, [['organization', 'Organization']]);
      assert.equal(get.url.type, 'string');
      assert.equal(get.related.type, 'object');
      assert.equal(get.summary_fields.type, 'object');
      assert.equal(get.created.type, 'datetime');
      assert.equal(get.modified.type, 'datetime');
      assert.deepEqual(get.name, { type: 'string', label: 'Name', help_text: 'Name of this organization.', filterable: true });
      assert.equal(get.max_hosts.type, 'integer');
      assert.equal(get.max_hosts.label, 'Max hosts');
      assert.equal(get.max_hosts.default, 0);
      assert.equal(get.policy_enforcement.type, 'choice');
      assert.deepEqual(get.policy_enforcement.choices.map(([v]: [string]) => v), ['none', 'warn', 'enforce']);
      assert.equal(get.policy_enforcement.default, 'none');
      assert.equal(get.name.required, undefined, 'GET metadata does not say required');
    });

    it('POST metadata lists only writable fields, with required', async () => {
      const { body } = await t.request('OPTIONS', '/api/v2/organizations/');
      const post = body.actions.POST;
      assert.deepEqual(Object.keys(post).sort(), ['default_environment', 'description', 'max_hosts', 'name', 'policy_enforcement', 'webauthn_required']);
      assert.equal(post.name.required, true);
      assert.equal(post.description.required, false);
      assert.equal(post.policy_enforcement.default, 'none');
    });

    it('POST appears only for a caller allowed to create', async () => {
      const admin = await t.request('OPTIONS', '/api/v2/organizations/');
      assert.ok(admin.body.actions.POST);
      const plain = await t.request('OPTIONS', '/api/v2/organizations/', { as: member });
      assert.equal(plain.status, 200);
      assert.deepEqual(Object.keys(plain.body.actions), ['GET']);
      assert.deepEqual(plain.body.actions.GET, admin.body.actions.GET);
      const users = await t.request('OPTIONS', '/api/v2/users/', { as: member });
      assert.deepEqual(Object.keys(users.body.actions), ['GET']);
    });

    it('secret fields are writable but never filterable', async () => {
      const { body } = await t.request('OPTIONS', '/api/v2/users/');
      assert.equal(body.actions.POST.password.type, 'string');
      assert.equal(body.actions.POST.password.required, true);
      assert.equal(body.actions.GET.password.filterable, false);
      assert.equal(body.actions.GET.username.filterable, true);
      assert.equal(body.actions.GET.is_superuser.type, 'boolean');
      assert.equal(body.actions.GET.last_login.type, 'datetime');
      assert.equal(body.actions.POST.last_login, undefined, 'read-only fields are not in POST');
      assert.deepEqual(body.search_fields, ['username', 'first_name', 'last_name', 'email']);
    });

    it('references are typed id', async () => {
      const { body } = await t.request('OPTIONS', '/api/v2/teams/');
      assert.equal(body.name, 'Team List');
      assert.equal(body.actions.GET.organization.type, 'id');
      assert.equal(body.actions.POST.organization.required, true);
      assert.deepEqual(body.search_fields, ['name', 'description']);
    });

    it('needs authentication', async () => {
      const res = await t.request('OPTIONS', '/api/v2/organizations/', { as: null });
      assert.equal(res.status, 401);
    });
  });

  describe('on a related list', () => {
    it('POST appears only for a caller allowed to add', async () => {
      const admin = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/teams/`);
      assert.equal(admin.status, 200);
      assert.equal(admin.body.name, 'Team List');
      assert.ok(admin.body.actions.POST);
      const plain = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/teams/`, { as: member });
      assert.equal(plain.status, 200);
      assert.deepEqual(Object.keys(plain.body.actions), ['GET']);
      const users = await t.request('OPTIONS', `/api/v2/teams/${teamId}/users/`, { as: member });
      assert.equal(users.status, 200);
      assert.deepEqual(Object.keys(users.body.actions), ['GET']);
    });

    it('is refused on a parent the caller may not see', async () => {
      const res = await t.request('OPTIONS', `/api/v2/organizations/${otherOrgId}/teams/`, { as: member });
      assert.equal(res.status, 403);
    });
  });

  describe('on a detail', () => {
    it('sets Allow with every method the detail answers, as AWX; PUT in actions when the caller may change it', async () => {
      const res = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      assert.equal(res.body.name, 'Organization');
      assert.ok(res.body.actions.GET);
      assert.ok(res.body.actions.PUT);
      assert.equal(res.body.actions.POST, undefined);
    });

    it('a member without admin rights may only read: no PUT in actions (Allow stays the same)', async () => {
      const res = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as: member });
      assert.equal(res.status, 200);
      assert.equal(res.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      assert.deepEqual(Object.keys(res.body.actions), ['GET']);
    });

    it('an organization admin may change the organization and its teams', async () => {
      const orgAdmin = await newUser(t, { admin: orgId });
      const res = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as: orgAdmin });
      assert.ok(res.body.actions.PUT);
      const team = await t.request('OPTIONS', `/api/v2/teams/${teamId}/`, { as: orgAdmin });
      assert.ok(team.body.actions.PUT);
    });

    it('a user on himself may change', async () => {
      const res = await t.request('OPTIONS', `/api/v2/users/${member.id}/`, { as: member });
      assert.equal(res.status, 200);
      assert.ok(res.body.actions.PUT);
    });

    it('an object the caller may not see is 403, an unknown one 404', async () => {
      assert.equal((await t.request('OPTIONS', `/api/v2/organizations/${otherOrgId}/`, { as: member })).status, 403);
      const missing = await t.request('OPTIONS', '/api/v2/organizations/987654/');
      assert.deepEqual([missing.status, missing.body], [404, { detail: 'Not found.' }]);
    });

    it('read-only resources offer no writes', async () => {
      const list = await t.request('OPTIONS', '/api/v2/activity_stream/');
      assert.equal(list.status, 200);
      assert.equal(list.body.name, 'Activity Stream List');
      assert.deepEqual(Object.keys(list.body.actions), ['GET']);
      assert.equal(list.body.actions.GET.operation.type, 'choice');
      const [{ id }] = await t.db.query('SELECT id FROM activity_stream ORDER BY id LIMIT 1');
      const detail = await t.request('OPTIONS', `/api/v2/activity_stream/${id}/`);
      assert.equal(detail.status, 200);
      assert.equal(detail.headers.allow, 'GET, HEAD, OPTIONS');
    });
  });
});
