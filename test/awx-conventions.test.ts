import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';

// What AWX's own clients (the awx.awx collection, awxkit's `awx` CLI) rely on beyond the plain
// resource conventions: null coercion, the Allow header, named URLs, capabilities and counts.
describe('AWX conventions', () => {
  let t: TestApp;
  let orgId: number;
  let otherOrgId: number;
  let orgAdmin: User;
  let member: User;
  let outsider: User;
  let machineTypeId: number;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Conventions' })).id;
    otherOrgId = (await newOrg(t, { name: 'Elsewhere' })).id;
    orgAdmin = await newUser(t, { admin: orgId });
    member = await newUser(t, { member: orgId });
    outsider = await newUser(t, { admin: otherOrgId });
    machineTypeId = (await t.get('/api/v2/credential_types/?kind=ssh&managed=true')).body.results[0].id;
  });
  after(() => t.close());

  describe('null in a request body', () => {
    it('the inventory module with default arguments creates an inventory (kind and host_filter null)', async () => {
      // What awx.awx.inventory sends when only name and organization are given.
      const res = await t.post('/api/v2/inventories/', { name: 'From the collection', organization: orgId, kind: null, host_filter: null });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.kind, '');
      assert.equal(res.body.host_filter, null);
      const [stored] = await t.db.query('SELECT kind, host_filter FROM inventories WHERE id = $1', [res.body.id]);
      assert.deepEqual(stored, { kind: '', host_filter: '' });
    });

    it('null means "" for text and choice fields and false for booleans, on create and update', async () => {
      const created = await t.post('/api/v2/inventories/', { name: 'Nulls', organization: orgId, description: null, prevent_instance_group_fallback: null });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.description, '');
      assert.equal(created.body.prevent_instance_group_fallback, false);
      const url = `/api/v2/inventories/${created.body.id}/`;
      const flagged = await t.patch(url, { description: 'set', prevent_instance_group_fallback: true });
      assert.equal(flagged.body.prevent_instance_group_fallback, true, flagged.text);
      const cleared = await t.patch(url, { description: null, prevent_instance_group_fallback: null });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.description, '');
      assert.equal(cleared.body.prevent_instance_group_fallback, false);
      const replaced = await t.put(url, { name: 'Nulls', organization: orgId, kind: null, variables: '' });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.kind, '');
    });

    it('a required text field sent as null is blank, a choice that has no "" is refused', async () => {
      const org = await t.post('/api/v2/organizations/', { name: null });
      assert.deepEqual([org.status, org.body], [400, { name: ['This field may not be blank.'] }]);
      const type = await t.post('/api/v2/credential_types/', { name: 'Nulled kind', kind: null });
      assert.equal(type.status, 400);
      assert.ok(type.body.kind, type.text);
    });

    it('fields AWX declares nullable keep null, others refuse it', async () => {
      const inv = await t.post('/api/v2/inventories/', { name: 'Keeps null', organization: orgId });
      const host = await t.post('/api/v2/hosts/', { name: 'h-null', inventory: inv.body.id, instance_id: null });
      assert.equal(host.status, 201, host.text);
      const refused = await t.post('/api/v2/organizations/', { name: 'null hosts', max_hosts: null });
      assert.deepEqual([refused.status, refused.body], [400, { max_hosts: ['This field may not be null.'] }]);
      const team = await t.post('/api/v2/teams/', { name: 'no org', organization: null });
      assert.deepEqual([team.status, team.body], [400, { organization: ['This field may not be null.'] }]);
    });

    it('the ad_hoc_command module with default arguments launches (module_args null)', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Ad hoc nulls', organization: orgId })).body.id;
      const res = await t.post('/api/v2/ad_hoc_commands/', { module_name: 'ping', module_args: null, inventory: inv, credential: null });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.module_args, '');
    });

    it('a plain member sending nulls is still refused, and nothing is stored', async () => {
      const res = await t.post('/api/v2/inventories/', { name: 'Member nulls', organization: orgId, kind: null }, { as: member });
      assert.equal(res.status, 403);
      const other = await t.post('/api/v2/inventories/', { name: 'Outsider nulls', organization: orgId, kind: null }, { as: outsider });
      assert.equal(other.status, 403);
      assert.equal((await t.get('/api/v2/inventories/?name__startswith=Member nulls')).body.count, 0);
      assert.equal((await t.get('/api/v2/inventories/?name=Outsider nulls')).body.count, 0);
    });
  });

  describe('the Allow header', () => {
    it('lists every method a list or detail answers, on GET and OPTIONS, whoever asks', async () => {
      for (const as of [undefined, member]) {
        const list = await t.get('/api/v2/organizations/', { as });
        assert.equal(list.headers.allow, 'GET, POST, HEAD, OPTIONS');
        const detail = await t.get(`/api/v2/organizations/${orgId}/`, { as });
        assert.equal(detail.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
        const options = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as });
        assert.equal(options.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      }
      assert.equal((await t.get('/api/v2/jobs/')).headers.allow, 'GET, HEAD, OPTIONS');
      assert.equal((await t.get('/api/v2/activity_stream/')).headers.allow, 'GET, HEAD, OPTIONS');
    });

    it('is sent on a 404 for an unknown id (awxkit asks OPTIONS /<resource>/1 to build its commands)', async () => {
      const missing = await t.request('OPTIONS', '/api/v2/credentials/987654');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { detail: 'Not found.' });
      assert.equal(missing.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      assert.equal((await t.get('/api/v2/jobs/987654/')).headers.allow, 'GET, DELETE, HEAD, OPTIONS');
    });

    it('is left out of the 404 of a named URL that names nothing, as AWX', async () => {
      const res = await t.get('/api/v2/organizations/No Such Org/');
      assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }]);
      assert.equal(res.headers.allow, undefined);
      const path = await t.get('/api/v2/no_such_endpoint/');
      assert.deepEqual([path.status, path.body], [404, { detail: 'Not found.' }]);
      assert.equal(path.headers.allow, undefined);
    });

    it('OPTIONS still says per caller what may be written: POST and PUT in actions', async () => {
      const asMember = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as: member });
      assert.deepEqual(Object.keys(asMember.body.actions), ['GET']);
      const asAdmin = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as: orgAdmin });
      assert.ok(asAdmin.body.actions.PUT);
    });
  });

  describe('named URLs', () => {
    let credentialId: number;
    let orgCredentialId: number;

    before(async () => {
      credentialId = (await t.post('/api/v2/credentials/', { name: 'Demo Credential', credential_type: machineTypeId, user: 1, inputs: { username: 'x' } })).body.id;
      orgCredentialId = (await t.post('/api/v2/credentials/', { name: 'Org+Key', credential_type: machineTypeId, organization: orgId, inputs: {} })).body.id;
    });

    it('a credential type is name+kind', async () => {
      const type = await t.get(`/api/v2/credential_types/${machineTypeId}/`);
      assert.equal(type.body.related.named_url, '/api/v2/credential_types/Machine+ssh/');
      const res = await t.get('/api/v2/credential_types/Machine+ssh/');
      assert.equal(res.status, 200);
      assert.equal(res.body.id, machineTypeId);
    });

    it('a credential is name++type name+kind++organization, empty without one', async () => {
      const plain = await t.get(`/api/v2/credentials/${credentialId}/`);
      assert.equal(plain.body.related.named_url, '/api/v2/credentials/Demo%20Credential++Machine+ssh++/');
      assert.equal((await t.get('/api/v2/credentials/Demo Credential++Machine+ssh++/')).body.id, credentialId);
      const owned = await t.get(`/api/v2/credentials/${orgCredentialId}/`);
      assert.equal(owned.body.related.named_url, '/api/v2/credentials/Org[+]Key++Machine+ssh++Conventions/');
      assert.equal((await t.get(owned.body.related.named_url)).body.id, orgCredentialId);
      // The same name in a list shows the same named URL.
      const listed = (await t.get('/api/v2/credentials/?name=Org%2BKey')).body.results[0];
      assert.equal(listed.related.named_url, owned.body.related.named_url);
    });

    it('a host is name++inventory++organization', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Prod', organization: orgId })).body.id;
      const host = (await t.post('/api/v2/hosts/', { name: 'web1', inventory: inv })).body;
      assert.equal(host.related.named_url, '/api/v2/hosts/web1++Prod++Conventions/');
      assert.equal((await t.get('/api/v2/hosts/web1++Prod++Conventions/')).body.id, host.id);
      assert.equal((await t.get('/api/v2/hosts/web1++Prod++Elsewhere/')).status, 404);
    });

    it('AWX\'s reserved characters are percent-encoded and resolve back', async () => {
      const org = await newOrg(t, { name: 'R&D: a=b;c@d' });
      const detail = await t.get(`/api/v2/organizations/${org.id}/`);
      assert.equal(detail.body.related.named_url, '/api/v2/organizations/R%26D%3A%20a%3Db%3Bc%40d/');
      assert.equal((await t.get(detail.body.related.named_url)).body.id, org.id);
    });

    it('malformed named URLs are 404', async () => {
      for (const url of [
        '/api/v2/credential_types/Machine/',
        '/api/v2/credential_types/Machine+ssh+x/',
        '/api/v2/credentials/Demo Credential++Machine+ssh/',
        '/api/v2/credentials/Demo Credential++Machine+ssh++++/',
        '/api/v2/credentials/Demo Credential/',
      ]) {
        const res = await t.get(url);
        assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }], url);
      }
    });

    it('another organization\'s admin cannot read through a named URL', async () => {
      const res = await t.get('/api/v2/credentials/Org[+]Key++Machine+ssh++Conventions/', { as: outsider });
      assert.equal(res.status, 403);
    });
  });
});
