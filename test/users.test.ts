import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type Credentials, type TestApp } from './helpers/app.ts';

describe('users', () => {
  let t: TestApp;
  let adminId: number;

  before(async () => {
    t = await createTestApp();
    adminId = (await t.get('/api/v2/users/admin/')).body.id;
  });
  after(() => t.close());

  const storedHash = async (id: number) => (await t.db.query<{ password: string }>('SELECT password FROM users WHERE id = $1', [id]))[0].password;
  const canSignIn = async (username: string, password: string) => (await t.get('/api/v2/me/', { as: { username, password } })).status === 200;
  const systemRoleHolders = async (singleton: string) =>
    (
      await t.db.query(
        `SELECT u.username FROM role_users ru JOIN roles r ON r.id = ru.role_id JOIN users u ON u.id = ru.user_id
         WHERE r.singleton_name = $1 ORDER BY u.username`,
        [singleton],
      )
    ).map((r) => r.username);

  describe('CRUD', () => {
    let user: any;

    it('POST creates a user: 201, the password reads back as $encrypted$', async () => {
      const res = await t.post('/api/v2/users/', {
        username: 'jdoe',
        password: 'S3cret!pw',
        first_name: 'John',
        last_name: 'Doe',
        email: 'jdoe@example.com',
      });
      assert.equal(res.status, 201);
      user = res.body;
      assert.equal(user.type, 'user');
      assert.equal(user.url, `/api/v2/users/${user.id}/`);
      assert.equal(user.username, 'jdoe');
      assert.equal(user.first_name, 'John');
      assert.equal(user.last_name, 'Doe');
      assert.equal(user.email, 'jdoe@example.com');
      assert.equal(user.is_superuser, false);
      assert.equal(user.is_system_auditor, false);
      assert.equal(user.password, '$encrypted$');
      assert.equal(user.ldap_dn, '');
      assert.equal(user.last_login, null);
      assert.equal(user.external_account, null);
      assert.deepEqual(user.related, {
        created_by: `/api/v2/users/${adminId}/`,
        modified_by: `/api/v2/users/${adminId}/`,
        named_url: '/api/v2/users/jdoe/',
        teams: `/api/v2/users/${user.id}/teams/`,
        organizations: `/api/v2/users/${user.id}/organizations/`,
        admin_of_organizations: `/api/v2/users/${user.id}/admin_of_organizations/`,
        roles: `/api/v2/users/${user.id}/roles/`,
        tokens: `/api/v2/users/${user.id}/tokens/`,
        personal_tokens: `/api/v2/users/${user.id}/personal_tokens/`,
        projects: `/api/v2/users/${user.id}/projects/`,
        credentials: `/api/v2/users/${user.id}/credentials/`,
        access_list: `/api/v2/users/${user.id}/access_list/`,
        activity_stream: `/api/v2/users/${user.id}/activity_stream/`,
      });
      assert.deepEqual(user.summary_fields, {
        created_by: { id: adminId, username: 'admin', first_name: '', last_name: '' },
        modified_by: { id: adminId, username: 'admin', first_name: '', last_name: '' },
        user_capabilities: { edit: true, delete: true },
      });
    });

    it('stores the password hashed with argon2 and never shows the hash', async () => {
      const hash = await storedHash(user.id);
      assert.match(hash, /^\$argon2/);
      assert.doesNotMatch(hash, /S3cret/);
      for (const url of [`/api/v2/users/${user.id}/`, '/api/v2/users/', '/api/v2/users/jdoe/']) {
        const res = await t.get(url);
        assert.ok(!res.text.includes(hash), url);
        assert.ok(!res.text.includes('$argon2'), url);
        assert.ok(!res.text.includes('S3cret'), url);
      }
      const me = await t.get('/api/v2/me/', { as: { username: 'jdoe', password: 'S3cret!pw' } });
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].password, '$encrypted$');
    });

    it('the new password works for basic auth; a wrong one does not', async () => {
      assert.equal(await canSignIn('jdoe', 'S3cret!pw'), true);
      assert.equal(await canSignIn('jdoe', 'S3cret!pW'), false);
    });

    it('PATCH changes the password', async () => {
      const before = await storedHash(user.id);
      const res = await t.patch(`/api/v2/users/${user.id}/`, { password: 'N3w-password' });
      assert.equal(res.status, 200);
      assert.equal(res.body.password, '$encrypted$');
      const after = await storedHash(user.id);
      assert.notEqual(after, before);
      assert.match(after, /^\$argon2/);
      assert.equal(await canSignIn('jdoe', 'N3w-password'), true);
      assert.equal(await canSignIn('jdoe', 'S3cret!pw'), false);
    });

    it('PATCH or PUT with "$encrypted$" (or without a password) keeps the password', async () => {
      const before = await storedHash(user.id);
      const patch = await t.patch(`/api/v2/users/${user.id}/`, { password: '$encrypted$', first_name: 'Johnny' });
      assert.equal(patch.status, 200);
      assert.equal(patch.body.first_name, 'Johnny');
      assert.equal(await storedHash(user.id), before);
      const put = await t.put(`/api/v2/users/${user.id}/`, { username: 'jdoe', password: '$encrypted$', email: 'john@example.com' });
      assert.equal(put.status, 200);
      assert.equal(put.body.email, 'john@example.com');
      assert.equal(await storedHash(user.id), before);
      const putWithout = await t.put(`/api/v2/users/${user.id}/`, { username: 'jdoe' });
      assert.equal(putWithout.status, 200);
      assert.equal(await storedHash(user.id), before);
      assert.equal(await canSignIn('jdoe', 'N3w-password'), true);
    });

    it('a blank password is refused', async () => {
      const res = await t.patch(`/api/v2/users/${user.id}/`, { password: '' });
      assert.deepEqual([res.status, res.body], [400, { password: ['This field may not be blank.'] }]);
      assert.equal(await canSignIn('jdoe', 'N3w-password'), true);
    });

    it('GET by id and by name', async () => {
      const byId = await t.get(`/api/v2/users/${user.id}/`);
      assert.equal(byId.status, 200);
      assert.equal(byId.body.first_name, 'Johnny');
      assert.deepEqual((await t.get('/api/v2/users/jdoe/')).body, byId.body);
    });

    it('DELETE answers 204 and removes the user and his memberships', async () => {
      const orgId = (await t.get('/api/v2/organizations/Default/')).body.id;
      await t.post(`/api/v2/organizations/${orgId}/users/`, { id: user.id });
      const res = await t.delete(`/api/v2/users/${user.id}/`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await t.get(`/api/v2/users/${user.id}/`)).status, 404);
      assert.equal((await t.db.query('SELECT 1 FROM users WHERE id = $1', [user.id])).length, 0);
      assert.equal((await t.db.query('SELECT 1 FROM role_users WHERE user_id = $1', [user.id])).length, 0);
      assert.equal(await canSignIn('jdoe', 'N3w-password'), false);
    });
  });

  describe('system roles', () => {
    it('is_superuser and is_system_auditor keep the system roles in step', async () => {
      const promoted = await t.createUser('promoted');
      assert.deepEqual(await systemRoleHolders('system_administrator'), ['admin']);
      assert.equal((await t.patch(`/api/v2/users/${promoted.id}/`, { is_superuser: true })).status, 200);
      assert.deepEqual(await systemRoleHolders('system_administrator'), ['admin', 'promoted']);
      assert.equal((await t.post('/api/v2/organizations/', { name: 'by-promoted' }, { as: promoted })).status, 201);
      assert.equal((await t.patch(`/api/v2/users/${promoted.id}/`, { is_superuser: false })).status, 200);
      assert.deepEqual(await systemRoleHolders('system_administrator'), ['admin']);
      assert.equal((await t.post('/api/v2/organizations/', { name: 'by-demoted' }, { as: promoted })).status, 403);

      assert.equal((await t.patch(`/api/v2/users/${promoted.id}/`, { is_system_auditor: true })).status, 200);
      assert.deepEqual(await systemRoleHolders('system_auditor'), ['promoted']);
      assert.equal((await t.patch(`/api/v2/users/${promoted.id}/`, { is_system_auditor: false })).status, 200);
      assert.deepEqual(await systemRoleHolders('system_auditor'), []);
    });

    it('a user created as superuser holds the role at once', async () => {
      await t.createUser('born-super', { is_superuser: true, is_system_auditor: true });
      assert.ok((await systemRoleHolders('system_administrator')).includes('born-super'));
      assert.ok((await systemRoleHolders('system_auditor')).includes('born-super'));
    });

    it('a non-superuser setting is_superuser or is_system_auditor → 403', async () => {
      const plain = await t.createUser('climber');
      for (const body of [{ is_superuser: true }, { is_system_auditor: true }, { is_superuser: true, first_name: 'Sneaky' }]) {
        const res = await t.patch(`/api/v2/users/${plain.id}/`, body, { as: plain });
        assert.equal(res.status, 403, JSON.stringify(body));
        assert.equal(typeof res.body.detail, 'string');
      }
      const [row] = await t.db.query('SELECT is_superuser, is_system_auditor, first_name FROM users WHERE id = $1', [plain.id]);
      assert.deepEqual(row, { is_superuser: false, is_system_auditor: false, first_name: '' });
      assert.ok(!(await systemRoleHolders('system_administrator')).includes('climber'));
      const unchanged = await t.patch(`/api/v2/users/${plain.id}/`, { is_superuser: false, first_name: 'Honest' }, { as: plain });
      assert.equal(unchanged.status, 200);
      assert.equal(unchanged.body.first_name, 'Honest');
    });
  });

  describe('own account', () => {
    let plain: Credentials & { id: number };

    before(async () => {
      plain = await t.createUser('selfie');
    });

    it('a user may change his own name and password', async () => {
      const res = await t.patch(`/api/v2/users/${plain.id}/`, { last_name: 'Self', password: 'selfie-new' }, { as: plain });
      assert.equal(res.status, 200);
      assert.equal(res.body.last_name, 'Self');
      assert.deepEqual(res.body.summary_fields.user_capabilities, { edit: true, delete: false });
      assert.equal(await canSignIn('selfie', 'selfie-new'), true);
      assert.equal(await canSignIn('selfie', 'selfie-pw'), false);
      plain.password = 'selfie-new';
    });

    it('a user cannot delete himself', async () => {
      assert.equal((await t.delete(`/api/v2/users/${plain.id}/`, { as: plain })).status, 403);
      const self = await t.delete(`/api/v2/users/${adminId}/`);
      assert.equal(self.status, 403);
      assert.equal((await t.db.query('SELECT 1 FROM users WHERE id = ANY($1::integer[])', [[plain.id, adminId]])).length, 2);
    });

    it('a user may not change or delete someone else', async () => {
      const other = await t.createUser('someone-else');
      assert.equal((await t.patch(`/api/v2/users/${other.id}/`, { first_name: 'x' }, { as: plain })).status, 403);
      assert.equal((await t.patch(`/api/v2/users/${other.id}/`, { password: 'hijacked' }, { as: plain })).status, 403);
      assert.equal((await t.delete(`/api/v2/users/${other.id}/`, { as: plain })).status, 403);
      assert.equal(await canSignIn('someone-else', 'someone-else-pw'), true);
    });

    it('only a superuser creates users', async () => {
      const res = await t.post('/api/v2/users/', { username: 'made-by-plain', password: 'pw' }, { as: plain });
      assert.equal(res.status, 403);
      assert.equal((await t.db.query(`SELECT 1 FROM users WHERE username = 'made-by-plain'`)).length, 0);
    });
  });

  describe('visibility', () => {
    it('a plain user sees himself and the members of his organizations', async () => {
      const org = await newOrg(t);
      const me = await newUser(t, { username: 'watcher', member: org });
      const colleague = await newUser(t, { username: 'colleague', member: org });
      const stranger = await newUser(t, { username: 'stranger' });
      const res = await t.get('/api/v2/users/?order_by=username', { as: me });
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 2);
      assert.deepEqual(res.body.results.map((u: any) => u.username), ['colleague', 'watcher']);
      assert.equal((await t.get(`/api/v2/users/${colleague.id}/`, { as: me })).status, 200);
      assert.equal((await t.get(`/api/v2/users/${stranger.id}/`, { as: me })).status, 403);
      assert.equal((await t.get('/api/v2/users/stranger/', { as: me })).status, 403);
      assert.equal((await t.get(`/api/v2/users/${stranger.id}/teams/`, { as: me })).status, 403);
    });

    it('/me/ answers the caller', async () => {
      const me = await t.createUser('itsme');
      const res = await t.get('/api/v2/me/', { as: me });
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      assert.equal(res.body.results[0].id, me.id);
      assert.equal(res.body.results[0].username, 'itsme');
    });
  });
});
