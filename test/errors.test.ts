import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { VERSION } from '../src/version.ts';

describe('errors', () => {
  let t: TestApp;
  let defaultId: number;
  let adminId: number;

  before(async () => {
    t = await createTestApp();
    defaultId = (await t.get('/api/v2/organizations/Default/')).body.id;
    adminId = (await t.get('/api/v2/users/admin/')).body.id;
  });
  after(() => t.close());

  const orgCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations'))[0].n;

  describe('request bodies', () => {
    it('malformed JSON → 400 {detail}', async () => {
      const res = await t.request('POST', '/api/v2/organizations/', { payload: '{"name": "x",', headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body), ['detail']);
      assert.match(res.body.detail, /^JSON parse error/);
    });

    it('a JSON array body → 400', async () => {
      const before = await orgCount();
      const res = await t.post('/api/v2/organizations/', [{ name: 'in-a-list' }]);
      assert.deepEqual([res.status, res.body], [400, { detail: 'Invalid data. Expected a dictionary, but got list.' }]);
      const scalar = await t.post('/api/v2/organizations/', 'just a string');
      assert.deepEqual([scalar.status, scalar.body], [400, { detail: 'Invalid data. Expected a dictionary, but got str.' }]);
      const nil = await t.request('POST', '/api/v2/organizations/', { payload: 'null', headers: { 'content-type': 'application/json' } });
      assert.deepEqual([nil.status, nil.body], [400, { detail: 'Invalid data. Expected a dictionary, but got NoneType.' }]);
      const patch = await t.patch(`/api/v2/organizations/${defaultId}/`, [1, 2]);
      assert.deepEqual([patch.status, patch.body], [400, { detail: 'Invalid data. Expected a dictionary, but got list.' }]);
      assert.equal(await orgCount(), before);
    });

    it('an empty body is an empty object', async () => {
      const res = await t.request('POST', '/api/v2/organizations/');
      assert.deepEqual([res.status, res.body], [400, { name: ['This field is required.'] }]);
      const json = await t.request('POST', '/api/v2/organizations/', { payload: '', headers: { 'content-type': 'application/json' } });
      assert.deepEqual([json.status, json.body], [400, { name: ['This field is required.'] }]);
    });

    it('a wrong Content-Type on POST → 415 {detail}', async () => {
      const before = await orgCount();
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await t.request('POST', '/api/v2/organizations/', { payload: 'name=sneaky', headers: { 'content-type': type } });
        assert.equal(res.status, 415, type);
        assert.deepEqual(res.body, { detail: `Unsupported media type "${type}" in request.` });
      }
      const patch = await t.request('PATCH', `/api/v2/organizations/${defaultId}/`, { payload: 'x', headers: { 'content-type': 'text/plain' } });
      assert.equal(patch.status, 415);
      assert.equal(await orgCount(), before);
    });

    it('JSON with a charset is accepted', async () => {
      const res = await t.request('POST', '/api/v2/organizations/', {
        payload: JSON.stringify({ name: 'charset-org' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(res.status, 201);
    });
  });

  describe('routes and objects', () => {
    it('an unknown id → 404 {detail: "Not found."}', async () => {
      for (const url of ['/api/v2/organizations/987654/', '/api/v2/users/987654/', '/api/v2/teams/987654/', '/api/v2/teams/987654/users/']) {
        const res = await t.get(url);
        assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }], url);
      }
      for (const [method, url] of [['PATCH', '/api/v2/organizations/987654/'], ['DELETE', '/api/v2/teams/987654/'], ['PUT', '/api/v2/users/987654/']]) {
        const res = await t.request(method, url, { body: {} });
        assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }], `${method} ${url}`);
      }
    });

    it('an unknown route → 404', async () => {
      // Other paths are the web console's pages (console-serving.test.ts).
      for (const url of ['/api/v2/nosuch/', '/api/v3/', '/api/nothing', `/api/v2/organizations/${defaultId}/nosuch/`]) {
        const res = await t.get(url);
        assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }], url);
      }
    });

    it('an unsupported method → 405 with an Allow header', async () => {
      const del = await t.delete('/api/v2/organizations/');
      assert.equal(del.status, 405);
      assert.deepEqual(del.body, { detail: 'Method "DELETE" not allowed.' });
      assert.equal(del.headers.allow, 'GET, POST, HEAD, OPTIONS');
      const put = await t.put('/api/v2/users/', {});
      assert.equal(put.status, 405);
      assert.equal(put.headers.allow, 'GET, POST, HEAD, OPTIONS');
      const post = await t.post(`/api/v2/organizations/${defaultId}/`, { name: 'x' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      const activity = await t.post('/api/v2/activity_stream/', {});
      assert.equal(activity.status, 405);
      assert.equal(activity.headers.allow, 'GET, HEAD, OPTIONS');
    });

    it('authentication and body parsing come before 405', async () => {
      const res = await t.request('DELETE', '/api/v2/organizations/', { as: null });
      assert.equal(res.status, 401);
      const bad = await t.request('DELETE', '/api/v2/organizations/', { payload: '{', headers: { 'content-type': 'application/json' } });
      assert.equal(bad.status, 400);
    });
  });

  describe('product headers', () => {
    it('are on every response, errors included', async () => {
      const responses = [
        await t.get('/api/v2/organizations/'),
        await t.get('/api/v2/ping/', { as: null }),
        await t.get('/api/v2/organizations/', { as: null }),
        await t.get('/api/v2/organizations/', { as: { username: 'admin', password: 'wrong' } }),
        await t.get('/api/v2/nosuch/'),
        await t.get('/api/v2/organizations/987654/'),
        await t.delete('/api/v2/organizations/'),
        await t.request('POST', '/api/v2/organizations/', { payload: 'x', headers: { 'content-type': 'text/plain' } }),
        await t.request('POST', '/api/v2/organizations/', { payload: '{', headers: { 'content-type': 'application/json' } }),
        await t.post('/api/v2/organizations/', {}),
        await t.get('/api/v2/organizations/?page=0'),
        await t.get('/api/v2/users/?password=x'),
        await t.request('OPTIONS', '/api/v2/organizations/'),
        await t.request('HEAD', '/api/v2/organizations/'),
        await t.delete(`/api/v2/users/${adminId}/`),
      ];
      const statuses = responses.map((r) => r.status);
      assert.deepEqual(statuses, [200, 200, 401, 401, 404, 404, 405, 415, 400, 400, 404, 403, 200, 200, 403]);
      assert.equal(responses[13].text, '', 'HEAD answers no body');
      for (const res of responses) {
        assert.equal(res.headers['x-api-product-name'], 'Drover', String(res.status));
        assert.equal(res.headers['x-api-product-version'], VERSION, String(res.status));
      }
    });

    it('are on a 500 too', async () => {
      await t.db.exec(`
        CREATE FUNCTION fail_team_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'teams are broken'; END $$;
        CREATE TRIGGER fail_team_insert BEFORE INSERT ON teams FOR EACH ROW EXECUTE FUNCTION fail_team_insert();`);
      try {
        const res = await t.post('/api/v2/teams/', { name: 'boom', organization: defaultId });
        assert.equal(res.status, 500);
        assert.deepEqual(res.body, { detail: 'A server error has occurred.' });
        assert.doesNotMatch(res.text, /teams are broken/);
        assert.equal(res.headers['x-api-product-name'], 'Drover');
      } finally {
        await t.db.exec('DROP TRIGGER fail_team_insert ON teams; DROP FUNCTION fail_team_insert();');
      }
    });
  });

  describe('validation errors', () => {
    it('missing required fields: {field: ["This field is required."]}', async () => {
      const res = await t.post('/api/v2/teams/', { description: 'no name' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { name: ['This field is required.'], organization: ['This field is required.'] });
      const users = await t.post('/api/v2/users/', {});
      assert.deepEqual(users.body, { username: ['This field is required.'], password: ['This field is required.'] });
    });

    it('blank and null values', async () => {
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: '' })).body, { name: ['This field may not be blank.'] });
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: '   ' })).body, { name: ['This field may not be blank.'] });
      // As AWX's CharNullField: null is read as "", which a name may not be.
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: null })).body, { name: ['This field may not be blank.'] });
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: 'n', max_hosts: null })).body, { max_hosts: ['This field may not be null.'] });
    });

    it('too long', async () => {
      const res = await t.post('/api/v2/organizations/', { name: 'x'.repeat(513) });
      assert.deepEqual([res.status, res.body], [400, { name: ['Ensure this field has no more than 512 characters.'] }]);
      assert.equal((await t.post('/api/v2/organizations/', { name: 'x'.repeat(512) })).status, 201);
      const user = await t.post('/api/v2/users/', { username: 'u'.repeat(151), password: 'pw' });
      assert.deepEqual(user.body, { username: ['Ensure this field has no more than 150 characters.'] });
    });

    it('wrong types', async () => {
      const res = await t.post('/api/v2/organizations/', { name: 'typed', max_hosts: 'many' });
      assert.deepEqual([res.status, res.body], [400, { max_hosts: ['A valid integer is required.'] }]);
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: 'typed', max_hosts: 1.5 })).body, { max_hosts: ['A valid integer is required.'] });
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: 'typed', max_hosts: -1 })).body, {
        max_hosts: ['Ensure this value is greater than or equal to 0.'],
      });
      assert.deepEqual((await t.post('/api/v2/organizations/', { name: { nested: true } })).body, { name: ['Not a valid string.'] });
      assert.deepEqual((await t.post('/api/v2/users/', { username: 'typed', password: 'pw', is_superuser: 'yes' })).body, {
        is_superuser: ['Must be a valid boolean.'],
      });
      assert.deepEqual((await t.post('/api/v2/teams/', { name: 'typed', organization: 'Default' })).body, {
        organization: ['Incorrect type. Expected pk value, received str.'],
      });
      assert.deepEqual((await t.post('/api/v2/teams/', { name: 'typed', organization: 987654 })).body, {
        organization: ['Invalid pk "987654" - object does not exist.'],
      });
      assert.deepEqual((await t.post('/api/v2/users/', { username: 'bad name', password: 'pw', email: 'not-an-email' })).body, {
        username: ['Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.'],
        email: ['Enter a valid email address.'],
      });
    });

    it('a bad choice', async () => {
      const res = await t.post('/api/v2/organizations/', { name: 'choosy', policy_enforcement: 'sometimes' });
      assert.deepEqual([res.status, res.body], [400, { policy_enforcement: ['"sometimes" is not a valid choice.'] }]);
      const patch = await t.patch(`/api/v2/organizations/${defaultId}/`, { policy_enforcement: 'strict' });
      assert.deepEqual([patch.status, patch.body], [400, { policy_enforcement: ['"strict" is not a valid choice.'] }]);
      assert.equal((await t.get(`/api/v2/organizations/${defaultId}/`)).body.policy_enforcement, 'none');
    });

    it('every problem is reported at once', async () => {
      const res = await t.post('/api/v2/organizations/', { name: '', max_hosts: 'x', policy_enforcement: 'y' });
      assert.deepEqual(res.body, {
        name: ['This field may not be blank.'],
        max_hosts: ['A valid integer is required.'],
        policy_enforcement: ['"y" is not a valid choice.'],
      });
    });

    it('unique violations → 400', async () => {
      const before = await orgCount();
      const res = await t.post('/api/v2/organizations/', { name: 'Default' });
      assert.deepEqual([res.status, res.body], [400, { name: ['Organization with this Name already exists.'] }]);
      assert.equal(await orgCount(), before);
      const other = (await newOrg(t, { name: 'renamable' })).id;
      const rename = await t.patch(`/api/v2/organizations/${other}/`, { name: 'Default' });
      assert.deepEqual([rename.status, rename.body], [400, { name: ['Organization with this Name already exists.'] }]);
      assert.equal((await t.patch(`/api/v2/organizations/${other}/`, { name: 'renamable' })).status, 200, 'keeping its own name is fine');
      await t.post('/api/v2/teams/', { name: 'twin', organization: defaultId });
      const team = await t.post('/api/v2/teams/', { name: 'twin', organization: defaultId });
      assert.deepEqual([team.status, team.body], [400, { __all__: ['Team with this Organization and Name already exists.'] }]);
      assert.equal((await t.post('/api/v2/teams/', { name: 'twin', organization: other })).status, 201, 'same name in another organization');
      const user = await t.post('/api/v2/users/', { username: 'admin', password: 'pw' });
      assert.deepEqual([user.status, user.body], [400, { username: ['User with this Username already exists.'] }]);
    });

    it('a unique violation the checks cannot see is still a 400', async () => {
      const results = await Promise.all([1, 2, 3].map(() => t.post('/api/v2/organizations/', { name: 'racing' })));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 400, 400]);
      assert.equal((await t.db.query(`SELECT count(*)::int AS n FROM organizations WHERE name = 'racing'`))[0].n, 1);
    });

    it('POST with "$encrypted$" as a password → 400', async () => {
      const res = await t.post('/api/v2/users/', { username: 'sneaky', password: '$encrypted$' });
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body), ['password']);
      assert.equal((await t.db.query(`SELECT 1 FROM users WHERE username = 'sneaky'`)).length, 0);
    });
  });

  describe('authentication', () => {
    it('anonymous → 401', async () => {
      for (const [method, url] of [['GET', '/api/v2/organizations/'], ['POST', '/api/v2/organizations/'], ['GET', '/api/v2/me/'], ['DELETE', `/api/v2/organizations/${defaultId}/`]]) {
        const res = await t.request(method, url, { as: null, body: method === 'POST' ? { name: 'anon' } : undefined });
        assert.deepEqual([res.status, res.body], [401, { detail: 'Authentication credentials were not provided.' }], `${method} ${url}`);
      }
      assert.equal((await t.db.query(`SELECT 1 FROM organizations WHERE name = 'anon'`)).length, 0);
    });

    it('a bad basic password → 401', async () => {
      for (const who of [{ username: ADMIN.username, password: 'wrong' }, { username: 'nobody', password: 'x' }, { username: ADMIN.username, password: '' }]) {
        const res = await t.get('/api/v2/organizations/', { as: who });
        assert.deepEqual([res.status, res.body], [401, { detail: 'Invalid username/password.' }], who.username);
      }
    });

    it('an inactive user cannot sign in', async () => {
      const user = await t.createUser('sleepy');
      assert.equal((await t.get('/api/v2/me/', { as: user })).status, 200);
      await t.db.query(`UPDATE users SET is_active = false WHERE id = $1`, [user.id]);
      assert.equal((await t.get('/api/v2/me/', { as: user })).status, 401);
    });

    it('permission is decided before validation', async () => {
      const member = await newUser(t, { member: defaultId });
      const orgAdmin = await newUser(t, { admin: defaultId });
      const refused: [string, string, unknown][] = [
        ['POST', '/api/v2/organizations/', {}],
        ['POST', '/api/v2/organizations/', { name: '' }],
        ['PATCH', `/api/v2/organizations/${defaultId}/`, { name: '' }],
        ['PUT', `/api/v2/organizations/${defaultId}/`, {}],
        ['POST', '/api/v2/teams/', { organization: defaultId }],
        ['POST', `/api/v2/organizations/${defaultId}/teams/`, {}],
        ['PATCH', `/api/v2/users/${adminId}/`, { email: 'not-an-email' }],
      ];
      for (const [method, url, body] of refused) {
        const res = await t.request(method, url, { body, as: member });
        assert.deepEqual([res.status, res.body], [403, { detail: 'You do not have permission to perform this action.' }], `${method} ${url}`);
      }
      const allowed: [string, string, unknown, unknown][] = [
        ['PATCH', `/api/v2/organizations/${defaultId}/`, { name: '' }, { name: ['This field may not be blank.'] }],
        ['POST', '/api/v2/teams/', { organization: defaultId }, { name: ['This field is required.'] }],
        ['POST', `/api/v2/organizations/${defaultId}/teams/`, { name: 'x'.repeat(600) }, { name: ['Ensure this field has no more than 512 characters.'] }],
        ['PATCH', `/api/v2/users/${orgAdmin.id}/`, { email: 'not-an-email' }, { email: ['Enter a valid email address.'] }],
      ];
      for (const [method, url, body, errors] of allowed) {
        const res = await t.request(method, url, { body, as: orgAdmin });
        assert.deepEqual([res.status, res.body], [400, errors], `${method} ${url}`);
      }
    });

    it('a plain user gets 403 on what he may not do', async () => {
      const user = await t.createUser('plain');
      const res = await t.post('/api/v2/organizations/', { name: 'not-mine' }, { as: user });
      assert.deepEqual([res.status, res.body], [403, { detail: 'You do not have permission to perform this action.' }]);
      assert.equal((await t.db.query(`SELECT 1 FROM organizations WHERE name = 'not-mine'`)).length, 0);
    });
  });
});
