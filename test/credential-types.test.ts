import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ensureManagedCredentialTypes } from '../src/resources/credential-types/sync-managed.ts';
import { createTestApp, type Credentials, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const URL = '/api/v2/credential_types/';

const CUSTOM = {
  name: 'Acme API',
  kind: 'cloud',
  inputs: {
    fields: [
      { id: 'endpoint', label: 'Endpoint', type: 'string', format: 'url' },
      { id: 'api_token', label: 'API token', secret: true },
      { id: 'region', label: 'Region', choices: ['eu', 'us'] },
      { id: 'verify', label: 'Verify TLS', type: 'boolean', default: true },
    ],
    required: ['endpoint', 'api_token'],
  },
  injectors: {
    env: { ACME_TOKEN: '{{ api_token }}', ACME_CONF: '{{ tower.filename.conf }}' },
    extra_vars: { acme_region: '{{ region | default("eu") | upper }}' },
    file: { 'template.conf': '[acme]\nurl={{ endpoint }}\n{% if verify %}verify=yes{% else %}verify=no{% endif %}' },
  },
};

describe('credential types', () => {
  let t: TestApp;
  let alice: Credentials & { id: number };
  let serial = 0;
  const custom = (overrides: Record<string, unknown> = {}) => t.post(URL, { ...CUSTOM, name: `Custom ${++serial}`, ...overrides });
  const typeRow = async (namespace: string) => (await t.db.query<AnyRow>('SELECT * FROM credential_types WHERE namespace = $1', [namespace]))[0];

  before(async () => {
    t = await createTestApp();
    alice = await t.createUser('ct-alice');
  });
  after(() => t.close());

  describe('managed types', () => {
    it('are listed for every user with AWX namespaces, kinds and inputs', async () => {
      const res = await t.get(`${URL}?page_size=200`, { as: alice });
      assert.equal(res.status, 200);
      const byNamespace = new Map(res.body.results.map((r: any) => [r.namespace, r]));
      const expected: Record<string, [string, string]> = {
        ssh: ['Machine', 'ssh'], scm: ['Source Control', 'scm'], vault: ['Vault', 'vault'], net: ['Network', 'net'],
        aws: ['Amazon Web Services', 'cloud'], gce: ['Google Compute Engine', 'cloud'], azure_rm: ['Microsoft Azure Resource Manager', 'cloud'],
        vmware: ['VMware vCenter', 'cloud'], openstack: ['OpenStack', 'cloud'], registry: ['Container Registry', 'registry'],
        github_token: ['GitHub Personal Access Token', 'token'], gitlab_token: ['GitLab Personal Access Token', 'token'],
        galaxy_api_token: ['Ansible Galaxy/Automation Hub API Token', 'galaxy'], insights: ['Insights', 'insights'],
        satellite6: ['Red Hat Satellite 6', 'cloud'], rhv: ['Red Hat Virtualization', 'cloud'], controller: ['Red Hat Ansible Automation Platform', 'cloud'],
        terraform: ['Terraform backend configuration', 'cloud'], kubernetes_bearer_token: ['OpenShift or Kubernetes API Bearer Token', 'kubernetes'],
      };
      for (const [namespace, [name, kind]] of Object.entries(expected)) {
        const type: any = byNamespace.get(namespace);
        assert.ok(type, namespace);
        assert.deepEqual([type.name, type.kind, type.managed], [name, kind, true], namespace);
        assert.deepEqual(type.summary_fields.user_capabilities, { edit: false, delete: false });
      }
      const ssh: any = byNamespace.get('ssh');
      assert.deepEqual(ssh.inputs.fields.map((f: any) => f.id), [
        'username', 'password', 'ssh_key_data', 'ssh_public_key_data', 'ssh_key_unlock', 'become_method', 'become_username', 'become_password',
      ]);
      const key = ssh.inputs.fields.find((f: any) => f.id === 'ssh_key_data');
      assert.deepEqual(key, { id: 'ssh_key_data', label: 'SSH Private Key', type: 'string', secret: true, format: 'ssh_private_key', multiline: true });
      assert.equal(ssh.inputs.fields.find((f: any) => f.id === 'password').ask_at_runtime, true);
      const aws: any = byNamespace.get('aws');
      assert.deepEqual(aws.inputs.fields.map((f: any) => [f.id, f.label, f.secret ?? false]), [
        ['username', 'Access Key', false], ['password', 'Secret Key', true], ['security_token', 'STS Token', true],
      ]);
      assert.deepEqual(aws.inputs.required, ['username', 'password']);
      assert.deepEqual(byNamespace.get('insights') && (byNamespace.get('insights') as any).injectors.env, { INSIGHTS_USER: '{{username}}', INSIGHTS_PASSWORD: '{{password}}' });
    });

    it('are kept by an idempotent sync that also repairs them', async () => {
      const before = (await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM credential_types'))[0];
      await t.db.query<AnyRow>(`UPDATE credential_types SET inputs = '{}'::jsonb WHERE namespace = 'aws'`);
      await t.db.transaction((tx) => ensureManagedCredentialTypes(tx));
      await t.db.transaction((tx) => ensureManagedCredentialTypes(tx));
      assert.equal((await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM credential_types'))[0].n, before.n);
      assert.deepEqual((await typeRow('aws')).inputs.required, ['username', 'password']);
    });

    it('cannot be changed or deleted, even by a superuser', async () => {
      const ssh = await typeRow('ssh');
      const patch = await t.patch(`${URL}${ssh.id}/`, { name: 'Renamed' });
      assert.deepEqual([patch.status, patch.body], [403, { detail: 'Modifications not allowed for managed credential types' }]);
      assert.equal((await t.delete(`${URL}${ssh.id}/`)).status, 403);
      assert.equal((await t.patch(`${URL}${ssh.id}/`, { name: 'Renamed' }, { as: alice })).status, 403);
      assert.equal((await typeRow('ssh')).name, 'Machine');
    });
  });

  describe('custom types', () => {
    it('are created by superusers only, with inputs and injectors stored as given', async () => {
      assert.equal((await t.post(URL, { ...CUSTOM, name: 'By Alice' }, { as: alice })).status, 403);
      const res = await t.post(URL, CUSTOM);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual([res.body.name, res.body.kind, res.body.managed, res.body.namespace], ['Acme API', 'cloud', false, null]);
      assert.deepEqual(res.body.injectors, CUSTOM.injectors);
      assert.equal(res.body.related.credentials, `${URL}${res.body.id}/credentials/`);
      const [row] = await t.db.query<AnyRow>('SELECT inputs, injectors FROM credential_types WHERE id = $1', [res.body.id]);
      assert.equal(row.inputs.fields[1].type, 'string', 'a field without a type is a string');
      assert.deepEqual(row.injectors, CUSTOM.injectors);
      const entries = await t.db.query<AnyRow>(`SELECT operation FROM activity_stream WHERE object1 = 'credential_type' AND object1_id = $1`, [res.body.id]);
      assert.deepEqual(entries.map((e) => e.operation), ['create']);
      const dup = await t.post(URL, CUSTOM);
      assert.deepEqual([dup.status, dup.body], [400, { __all__: ['Credential Type with this Name and Kind already exists.'] }]);
    });

    it('may only be of kind cloud or net', async () => {
      const res = await custom({ kind: 'ssh' });
      assert.deepEqual([res.status, res.body], [400, { kind: ["Must be 'cloud' or 'net', not ssh"] }]);
      assert.equal((await custom({ kind: 'net' })).status, 201);
      assert.equal((await custom({ kind: 'bogus' })).status, 400);
    });

    it('refuses invalid inputs with 400 and stores nothing', async () => {
      const field = (extra: Record<string, unknown>) => ({ fields: [{ id: 'x', label: 'X', ...extra }] });
      const cases: [unknown, RegExp][] = [
        [{ fields: [{ id: '1abc', label: 'X' }] }, /1abc is an invalid variable name/],
        [{ fields: [{ id: 'tower', label: 'X' }] }, /"tower" is a reserved field name/],
        [{ fields: [{ id: 'x', label: 'X' }, { id: 'x', label: 'Y' }] }, /field IDs must be unique \(x\)/],
        [{ fields: [{ id: 'x' }] }, /'label' is a required string/],
        [field({ type: 'integer' }), /type must be "string" or "boolean"/],
        [field({ type: 'boolean', secret: true }), /secret not allowed for boolean type \(x\)/],
        [field({ type: 'boolean', default: 'yes' }), /"yes" is not a boolean/],
        [field({ ask_at_runtime: true }), /'ask_at_runtime' is not supported for custom credentials/],
        [field({ format: 'email' }), /format must be/],
        [field({ choices: [] }), /choices must be a non-empty list/],
        [field({ colour: 'red' }), /unknown key "colour"/],
        [{ ...field({}), required: ['y'] }, /"required" names fields that are not defined: y/],
        [{ ...field({}), dependencies: { x: ['y'] } }, /'dependencies' is not supported/],
        ['fields', /Must be an object/],
      ];
      const count = async () => (await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM credential_types'))[0].n;
      const before = await count();
      for (const [inputs, message] of cases) {
        const res = await custom({ inputs, injectors: {} });
        assert.equal(res.status, 400, JSON.stringify(inputs));
        assert.match(res.body.inputs[0], message);
      }
      assert.equal(await count(), before);
    });

    it('refuses injectors that name undefined fields or do anything but render', async () => {
      const inputs = { fields: [{ id: 'token', label: 'Token', secret: true }] };
      const cases: [unknown, RegExp][] = [
        [{ env: { X: '{{ nope }}' } }, /^env\.X uses an undefined field \(nope is undefined\)$/],
        [{ env: { X: '{% for c in token %}{{ c }}{% endfor %}' } }, /^env\.X uses for loops/],
        [{ env: { X: '{{ token.__class__ }}' } }, /^env\.X may only use attributes as tower\.filename/],
        [{ env: { X: '{{ token.upper() }}' } }, /^env\.X uses calls/],
        [{ env: { X: "{{ token | replace('a', 'b') }}" } }, /^env\.X uses the filter "replace"/],
        [{ env: { X: '{{ token * 1000 }}' } }, /^env\.X uses the operator "\*"/],
        [{ env: { X: '{% set y = token %}{{ y }}' } }, /^env\.X uses set/],
        [{ env: { X: '{{ token' } }, /^env\.X has a syntax error/],
        [{ env: { X: '{{ tower.filename }}' } }, /^env\.X references tower\.filename without an unnamed file injector/],
        [{ env: { X: '{{ tower }}' } }, /reserved `tower` namespace/],
        [{ extra_vars: { v: '{{ tower.filename.other }}' }, file: { 'template.one': 'x' } }, /template\.other/],
        [{ file: { template: 'a', 'template.b': 'b' } }, /Must use multi-file syntax/],
        [{ file: { config: 'a' } }, /file\.config: file injectors are named/],
        [{ env: { ANSIBLE_CONFIG: '{{ token }}' } }, /ANSIBLE_CONFIG may affect Ansible configuration/],
        [{ env: { PATH: '/tmp' } }, /PATH is not allowed to be used in credentials/],
        [{ env: { X: 1 } }, /env\.X must be a string/],
        [{ scripts: {} }, /Unknown key "scripts"/],
        [{ env: { X: 'é' } }, /must be ASCII/],
        [{ env: { X: '{{ "a" in token }}' } }, /uses the operator "in"/],
        [{ file: { template: `a${' '.repeat(1001)}b` } }, /^file\.template has more than 1000 blank characters in a row$/],
        [{ file: { template: 'x'.repeat(70_000) } }, /^file\.template is longer than 65536 characters$/],
        [{ env: { X: `{{ ${'('.repeat(5000)}token${')'.repeat(5000)} }}` } }, /too deeply nested/],
      ];
      for (const [injectors, message] of cases) {
        const res = await custom({ inputs, injectors });
        assert.equal(res.status, 400, JSON.stringify(injectors));
        assert.match(res.body.injectors[0], message, JSON.stringify(injectors));
      }
      const ok = await custom({ inputs, injectors: { env: { X: '{{ token if token is defined else "none" }}', Y: '{{ "x" ~ token | lower }}' } } });
      assert.equal(ok.status, 201, ok.text);
    });

    it('are edited by superusers; inputs are frozen and deletion refused while credentials use them', async () => {
      const type = (await custom()).body;
      assert.equal((await t.patch(`${URL}${type.id}/`, { description: 'x' }, { as: alice })).status, 403);
      const edited = await t.patch(`${URL}${type.id}/`, { description: 'Acme cloud API', injectors: { env: { ACME_TOKEN: '{{ api_token }}' } } });
      assert.equal(edited.status, 200, edited.text);
      const bad = await t.patch(`${URL}${type.id}/`, { injectors: { env: { ACME_TOKEN: '{{ missing }}' } } });
      assert.equal(bad.status, 400);
      const credential = await t.post('/api/v2/credentials/', {
        name: 'Acme prod', organization: 1, credential_type: type.id, inputs: { endpoint: 'https://acme.example.com', api_token: 's3cret' },
      });
      assert.equal(credential.status, 201, credential.text);
      const inputs = await t.patch(`${URL}${type.id}/`, { inputs: { fields: [{ id: 'other', label: 'Other' }] } });
      assert.deepEqual([inputs.status, inputs.body], [403, { detail: 'Modifications to inputs are not allowed for credential types that are in use' }]);
      assert.equal((await t.patch(`${URL}${type.id}/`, { name: 'Acme renamed' })).status, 200);
      const refused = await t.delete(`${URL}${type.id}/`);
      assert.deepEqual([refused.status, refused.body], [403, { detail: 'Credential types that are in use cannot be deleted' }]);
      const listed = await t.get(`${URL}${type.id}/credentials/`);
      assert.deepEqual(listed.body.results.map((c: any) => c.name), ['Acme prod']);
      assert.equal((await t.delete(`/api/v2/credentials/${credential.body.id}/`)).status, 204);
      assert.equal((await t.delete(`${URL}${type.id}/`)).status, 204);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM credential_types WHERE id = $1', [type.id])).length, 0);
    });
  });

  describe('lists', () => {
    it('filter, search and order like every list; OPTIONS offers POST to superusers only', async () => {
      const cloud = await t.get(`${URL}?managed=true&kind=cloud&order_by=name&page_size=100`, { as: alice });
      assert.ok(cloud.body.results.every((r: any) => r.kind === 'cloud' && r.managed));
      assert.deepEqual(cloud.body.results.map((r: any) => r.name), [...cloud.body.results.map((r: any) => r.name)].sort());
      assert.deepEqual((await t.get(`${URL}?search=Galaxy`, { as: alice })).body.results.map((r: any) => r.namespace), ['galaxy_api_token']);
      assert.equal((await t.get(`${URL}?namespace=ssh`)).body.results[0].name, 'Machine');
      assert.equal((await t.get(`${URL}Machine+ssh/`, { as: alice })).body.namespace, 'ssh');
      assert.equal((await t.request('OPTIONS', URL, { as: alice })).body.actions.POST, undefined);
      const options = await t.request('OPTIONS', URL);
      assert.deepEqual(options.body.actions.POST.kind.choices.map((c: string[]) => c[0]).slice(0, 4), ['ssh', 'vault', 'net', 'scm']);
      assert.equal((await t.get(URL, { as: null })).status, 401);
    });
  });
});
