import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, roleMatrix, type Credentials, type TestApp, type User } from './helpers/app.ts';
import { bootstrap } from '../src/server/bootstrap.ts';
import { defaultExecutionEnvironmentId, DEFAULT_EXECUTION_ENVIRONMENT_IMAGE } from '../src/resources/execution-environments/default-environment.ts';

const URL = '/api/v2/execution_environments/';
const IMAGE = 'registry.example.com/ops/ee:1.2';

describe('execution environments', () => {
  let t: TestApp;
  let engId: number;
  let salesId: number;
  let orgAdmin: User;
  let eeAdmin: User;
  let member: User;
  let outsider: User;
  let auditor: User;
  let managedId: number;

  const stored = async (id: number) => (await t.db.query('SELECT * FROM execution_environments WHERE id = $1', [id]))[0];
  const count = async () => (await t.db.query('SELECT count(*)::int AS n FROM execution_environments'))[0].n;
  const create = async (body: Record<string, unknown>, as?: Credentials) => t.post(URL, body, as ? { as } : {});

  before(async () => {
    t = await createTestApp();
    const eng = await newOrg(t, { name: 'Engineering' });
    engId = eng.id;
    salesId = (await newOrg(t)).id;
    ({ orgAdmin, eeAdmin, member, nobody: outsider } = await roleMatrix(t, eng, { orgAdmin: 'admin_role', eeAdmin: 'execution_environment_admin_role', member: 'member_role' }));
    auditor = await newUser(t, { is_system_auditor: true });
  });
  after(() => t.close());

  describe('the managed default', () => {
    it('exists in a fresh database: global, managed, AWX runtime image', async () => {
      const res = await t.get(`${URL}?managed=true`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      const ee = res.body.results[0];
      managedId = ee.id;
      assert.deepEqual(
        [ee.name, ee.image, ee.organization, ee.managed, ee.pull, ee.credential],
        ['Default execution environment', DEFAULT_EXECUTION_ENVIRONMENT_IMAGE, null, true, '', null],
      );
      assert.equal(ee.image, 'quay.io/ansible/awx-ee:24.6.1');
    });

    it('is created once, however often the service starts', async () => {
      const again = { ...t.services, env: { ...t.env, adminUser: 'admin', adminPassword: 'admin-password' } };
      await bootstrap(again);
      await bootstrap(again);
      const rows = await t.db.query('SELECT id FROM execution_environments WHERE managed');
      assert.deepEqual(rows.map((r) => r.id), [managedId]);
    });

    it('only its pull may change, and it cannot be deleted, even by a superuser', async () => {
      const detail = await t.get(`${URL}${managedId}/`);
      assert.deepEqual(detail.body.summary_fields.user_capabilities, { edit: true, delete: false, copy: true });
      const pulled = await t.patch(`${URL}${managedId}/`, { pull: 'missing', name: 'Default execution environment' });
      assert.equal(pulled.status, 200, pulled.text);
      assert.equal((await stored(managedId)).pull, 'missing');
      for (const change of [{ image: 'quay.io/other/ee:1' }, { name: 'Renamed' }, { description: 'x' }, { organization: engId }]) {
        const res = await t.patch(`${URL}${managedId}/`, change);
        assert.deepEqual([res.status, res.body], [403, { detail: "Only the 'pull' field can be edited for managed execution environments." }]);
      }
      const deleted = await t.delete(`${URL}${managedId}/`);
      assert.equal(deleted.status, 403);
      const row = await stored(managedId);
      assert.deepEqual(
        [row.name, row.image, row.description, row.organization_id],
        ['Default execution environment', DEFAULT_EXECUTION_ENVIRONMENT_IMAGE, "The node's own Ansible runtime; managed by the service.", null],
      );
      const patchManaged = await t.patch(`${URL}${managedId}/`, { managed: false });
      assert.equal(patchManaged.status, 200);
      assert.equal((await stored(managedId)).managed, true);
    });
  });

  describe('create and validate', () => {
    it('a superuser creates a global environment: 201 with links and summaries', async () => {
      const res = await create({ name: 'Global EE', description: 'Shared', image: IMAGE, pull: 'always', managed: true });
      assert.equal(res.status, 201, res.text);
      const ee = res.body;
      assert.deepEqual(
        [ee.type, ee.url, ee.name, ee.description, ee.image, ee.pull, ee.managed, ee.organization, ee.credential],
        ['execution_environment', `${URL}${ee.id}/`, 'Global EE', 'Shared', IMAGE, 'always', false, null, null],
      );
      assert.equal(ee.related.named_url, `${URL}Global EE/`.replace(' ', '%20'));
      assert.equal(ee.related.activity_stream, `${URL}${ee.id}/activity_stream/`);
      assert.deepEqual(ee.summary_fields.user_capabilities, { edit: true, delete: true, copy: true });
      const row = await stored(ee.id);
      assert.deepEqual([row.name, row.image, row.pull, row.managed, row.organization_id], ['Global EE', IMAGE, 'always', false, null]);
      const [activity] = await t.db.query(`SELECT operation FROM activity_stream WHERE object1 = 'execution_environment' AND object1_id = $1`, [ee.id]);
      assert.equal(activity.operation, 'create');
      assert.equal((await t.get(`${URL}Global%20EE/`)).body.id, ee.id);
    });

    it('refuses bad input with 400 and stores nothing', async () => {
      const before = await count();
      const cases: [Record<string, unknown>, Record<string, string[]>][] = [
        [{ name: 'No image' }, { image: ['This field is required.'] }],
        [{ name: 'Blank', image: '' }, { image: ['This field may not be blank.'] }],
        [{ name: 'Spaces', image: 'my image' }, { image: ['Invalid container image name my image'] }],
        [{ name: 'Scheme', image: 'https://quay.io/ansible/awx-ee' }, { image: ['Invalid container image name https://quay.io/ansible/awx-ee'] }],
        [{ name: 'Empty tag', image: 'quay.io/ansible/awx-ee:' }, { image: ['Invalid container image name quay.io/ansible/awx-ee:'] }],
        [{ name: 'Upper', image: 'Quay' }, { image: ['Invalid container image name Quay'] }],
        [{ name: 'Not text', image: 42 }, { image: ['Not a valid string.'] }],
        [{ name: 'Pull', image: IMAGE, pull: 'sometimes' }, { pull: ['"sometimes" is not a valid choice.'] }],
        [{ name: 'Global EE', image: IMAGE }, { name: ['Execution Environment with this Name already exists.'] }],
        [{ image: IMAGE }, { name: ['This field is required.'] }],
        [{ name: 'No org', image: IMAGE, organization: 99999 }, { organization: ['Invalid pk "99999" - object does not exist.'] }],
      ];
      for (const [body, errors] of cases) {
        const res = await create(body);
        assert.deepEqual([res.status, res.body], [400, errors], JSON.stringify(body));
      }
      assert.equal(await count(), before);
    });

    it('accepts the reference forms registries use', async () => {
      const images = ['awx-ee', 'localhost:5000/team/ee:latest', `quay.io/org/ee@sha256:${'ab'.repeat(32)}`, 'ghcr.io/a_b/c-d.e__f:v1.0-rc.1'];
      for (const [i, image] of images.entries()) {
        const res = await create({ name: `Form ${i}`, image });
        assert.equal(res.status, 201, `${image}: ${res.text}`);
        assert.equal((await stored(res.body.id)).image, image);
      }
    });
  });

  describe('access', () => {
    let engEe: number;
    let salesEe: number;
    let globalEe: number;

    before(async () => {
      globalEe = (await t.get(`${URL}Global%20EE/`)).body.id;
      salesEe = (await create({ name: 'Sales EE', image: IMAGE, organization: salesId })).body.id;
    });

    it('organization admins and environment admins create in their organization; others get 403', async () => {
      const byAdmin = await create({ name: 'Eng EE', image: IMAGE, organization: engId }, orgAdmin);
      assert.equal(byAdmin.status, 201, byAdmin.text);
      engEe = byAdmin.body.id;
      const byEeAdmin = await create({ name: 'Eng EE 2', image: IMAGE, organization: engId }, eeAdmin);
      assert.equal(byEeAdmin.status, 201, byEeAdmin.text);
      const before = await count();
      for (const [who, body] of [
        [member, { name: 'By member', image: IMAGE, organization: engId }],
        [outsider, { name: 'By outsider', image: IMAGE, organization: engId }],
        [orgAdmin, { name: 'Global by admin', image: IMAGE }],
        [orgAdmin, { name: 'Global by admin', image: IMAGE, organization: null }],
        [orgAdmin, { name: 'Elsewhere', image: IMAGE, organization: salesId }],
        [auditor, { name: 'By auditor', image: IMAGE, organization: engId }],
        // Permission is checked before validation, as AWX does.
        [member, { name: 'Bad and forbidden', image: 'bad image', organization: engId }],
      ] as const) {
        const res = await create(body, who);
        assert.equal(res.status, 403, `${who.username} ${JSON.stringify(body)}: ${res.text}`);
      }
      assert.equal(await count(), before);
      const invalid = await create({ name: 'Bad', image: 'bad image', organization: engId }, eeAdmin);
      assert.deepEqual(invalid.body, { image: ['Invalid container image name bad image'] });
    });

    it('OPTIONS offers POST to superusers and environment admins only', async () => {
      assert.ok((await t.request('OPTIONS', URL)).body.actions.POST);
      assert.ok((await t.request('OPTIONS', URL, { as: eeAdmin })).body.actions.POST);
      assert.equal((await t.request('OPTIONS', URL, { as: member })).body.actions.POST, undefined);
      assert.deepEqual((await t.request('OPTIONS', URL)).body.actions.GET.pull.choices.map((c: string[]) => c[0]), ['', 'always', 'missing', 'never']);
    });

    it('everyone sees the global ones; organization members see their organization\'s', async () => {
      const names = async (who: Credentials) => (await t.get(`${URL}?order_by=name&page_size=100`, { as: who })).body.results.map((r: { name: string }) => r.name);
      const globalNames = ['Default execution environment', 'Form 0', 'Form 1', 'Form 2', 'Form 3', 'Global EE'];
      assert.deepEqual(await names(outsider), globalNames);
      assert.deepEqual(await names(member), [...globalNames.slice(0, 1), 'Eng EE', 'Eng EE 2', ...globalNames.slice(1)]);
      assert.ok((await names(auditor)).includes('Sales EE'));
      assert.equal((await t.get(`${URL}${salesEe}/`, { as: member })).status, 403);
      assert.equal((await t.get(`${URL}${engEe}/`, { as: outsider })).status, 403);
      assert.equal((await t.get(`${URL}${globalEe}/`, { as: outsider })).status, 200);
      const asMember = (await t.get(`${URL}${engEe}/`, { as: member })).body;
      assert.deepEqual(asMember.summary_fields.user_capabilities, { edit: false, delete: false, copy: false });
      assert.deepEqual(asMember.summary_fields.organization, { id: engId, name: 'Engineering', description: '' });
    });

    it('changes: admins of the organization only; the organization stays; global ones are for superusers', async () => {
      const patched = await t.patch(`${URL}${engEe}/`, { description: 'Patched', pull: 'never' }, { as: eeAdmin });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual([(await stored(engEe)).description, (await stored(engEe)).pull], ['Patched', 'never']);
      assert.equal((await t.patch(`${URL}${engEe}/`, { description: 'x' }, { as: member })).status, 403);
      assert.equal((await t.patch(`${URL}${globalEe}/`, { description: 'x' }, { as: orgAdmin })).status, 403);
      assert.equal((await t.patch(`${URL}${engEe}/`, { organization: null }, { as: orgAdmin })).status, 403);
      assert.equal((await t.patch(`${URL}${engEe}/`, { organization: salesId }, { as: orgAdmin })).status, 403);
      const moved = await t.patch(`${URL}${salesEe}/`, { organization: engId });
      assert.deepEqual([moved.status, moved.body], [400, { organization: ['Cannot change the organization of an execution environment'] }]);
      const renamed = await t.patch(`${URL}${engEe}/`, { name: 'Global EE' }, { as: orgAdmin });
      assert.deepEqual([renamed.status, renamed.body], [400, { name: ['Execution Environment with this Name already exists.'] }]);
      assert.deepEqual([(await stored(engEe)).organization_id, (await stored(engEe)).description], [engId, 'Patched']);
      assert.equal((await stored(salesEe)).organization_id, salesId);
      // A superuser may make an organization's environment global (as AWX).
      const unset = await t.patch(`${URL}${salesEe}/`, { organization: null });
      assert.equal(unset.status, 200, unset.text);
      assert.equal((await stored(salesEe)).organization_id, null);
    });

    it('deletes: admins of the organization; 403 for others', async () => {
      assert.equal((await t.delete(`${URL}${engEe}/`, { as: member })).status, 403);
      assert.equal((await t.delete(`${URL}${globalEe}/`, { as: orgAdmin })).status, 403);
      assert.ok(await stored(engEe));
      assert.equal((await t.delete(`${URL}${engEe}/`, { as: eeAdmin })).status, 204);
      assert.equal(await stored(engEe), undefined);
      const [activity] = await t.db.query(`SELECT operation FROM activity_stream WHERE object1 = 'execution_environment' AND object1_id = $1 ORDER BY id DESC`, [engEe]);
      assert.equal(activity.operation, 'delete');
    });
  });

  describe('the default for runs', () => {
    it('is the setting when it names one, else the oldest global unmanaged one, else the managed one', async () => {
      const oldestGlobal = (await t.db.query('SELECT id FROM execution_environments WHERE organization_id IS NULL AND NOT managed ORDER BY created, id LIMIT 1'))[0].id;
      assert.equal(await defaultExecutionEnvironmentId(t.db, null), oldestGlobal);
      const eng2 = (await t.get(`${URL}Eng%20EE%202/`)).body.id;
      assert.equal(await defaultExecutionEnvironmentId(t.db, eng2), eng2);
      assert.equal(await defaultExecutionEnvironmentId(t.db, 987654), oldestGlobal);
      await t.db.query('DELETE FROM execution_environments WHERE organization_id IS NULL AND NOT managed');
      assert.equal(await defaultExecutionEnvironmentId(t.db, null), managedId);
    });
  });
});

describe('execution environment registry credentials', () => {
  let t: TestApp;
  let orgId: number;
  let eeAdmin: User;
  let registry: number;
  let machine: number;
  let eeId: number;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t);
    orgId = org.id;
    eeAdmin = await newUser(t);
    await grant(t, eeAdmin, org, 'execution_environment_admin_role');
    const typeId = async (kind: string) => (await t.db.query('SELECT id FROM credential_types WHERE kind = $1 AND managed ORDER BY id LIMIT 1', [kind]))[0].id;
    const credential = async (name: string, kind: string, inputs: Record<string, string>) => {
      const res = await t.post('/api/v2/credentials/', { name, organization: orgId, credential_type: await typeId(kind), inputs });
      assert.equal(res.status, 201, res.text);
      return res.body.id as number;
    };
    registry = await credential('Quay', 'registry', { host: 'quay.io', username: 'robot', password: 'registry-secret' });
    machine = await credential('Machine', 'ssh', { username: 'root', password: 'ssh-secret' });
    eeId = (await t.post('/api/v2/execution_environments/', { name: 'Private EE', image: 'quay.io/org/private:1', organization: orgId })).body.id;
  });
  after(() => t.close());

  it('takes a registry credential, and shows it without its secret', async () => {
    const res = await t.patch(`/api/v2/execution_environments/${eeId}/`, { credential: registry });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.credential, registry);
    assert.equal(res.body.related.credential, `/api/v2/credentials/${registry}/`);
    assert.equal(res.body.summary_fields.credential.name, 'Quay');
    assert.ok(!res.text.includes('registry-secret'));
  });

  it('refuses another kind of credential with 400', async () => {
    const res = await t.patch(`/api/v2/execution_environments/${eeId}/`, { credential: machine });
    assert.deepEqual([res.status, res.body], [400, { credential: ['Only Container Registry credentials can be associated with an Execution Environment'] }]);
    assert.equal((await t.db.query('SELECT credential_id FROM execution_environments WHERE id = $1', [eeId]))[0].credential_id, registry);
  });

  it('needs use_role on the credential', async () => {
    const denied = await t.post('/api/v2/execution_environments/', { name: 'Needs use', image: 'quay.io/a/b', organization: orgId, credential: registry }, { as: eeAdmin });
    assert.equal(denied.status, 403, denied.text);
    await grant(t, eeAdmin, `/api/v2/credentials/${registry}/`, 'use_role');
    const allowed = await t.post('/api/v2/execution_environments/', { name: 'Needs use', image: 'quay.io/a/b', organization: orgId, credential: registry }, { as: eeAdmin });
    assert.equal(allowed.status, 201, allowed.text);
  });
});
