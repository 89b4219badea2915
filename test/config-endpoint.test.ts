// GET /api/v2/config/ as AWX's ApiV2ConfigView answers each caller, with Drover's stricter rule for paths.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';

const COMMON = ['time_zone', 'license_info', 'version', 'eula', 'analytics_status', 'analytics_collectors', 'become_methods', 'ui_next'];
const PATHS = ['project_base_dir', 'project_local_paths'];

describe('/api/v2/config/', () => {
  let t: TestApp;
  let member: User;
  let orgAdmin: User;
  let orgAuditor: User;
  let systemAuditor: User;
  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t);
    member = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: org });
    orgAuditor = await newUser(t, { auditor: org });
    systemAuditor = await newUser(t, { is_system_auditor: true });
  });
  after(() => t.close());

  it('answers every caller what AWX answers everyone', async () => {
    for (const who of [undefined, member, orgAdmin, systemAuditor]) {
      const res = await t.get('/api/v2/config/', who && { as: who });
      assert.equal(res.status, 200);
      for (const key of COMMON) assert.ok(key in res.body, `${who?.username ?? 'admin'}: ${key}`);
      assert.deepEqual(res.body.license_info, { license_type: 'open', valid_key: true, subscription_name: 'OPEN', product_name: res.body.license_info.product_name });
      assert.equal(res.body.eula, '');
      assert.equal(res.body.analytics_status, 'off');
      assert.deepEqual(res.body.become_methods[0], ['sudo', 'Sudo']);
      assert.equal(res.body.ui_next, true);
      assert.ok(!('user_ldap_fields' in res.body), 'no LDAP is configured');
    }
    assert.equal((await t.get('/api/v2/config/', { as: null })).status, 401);
  });

  it('ui_next follows UI_NEXT', async () => {
    assert.equal((await t.patch('/api/v2/settings/system/', { UI_NEXT: false })).status, 200);
    assert.equal((await t.get('/api/v2/config/', { as: member })).body.ui_next, false);
    await t.patch('/api/v2/settings/system/', { UI_NEXT: true });
    assert.equal((await t.get('/api/v2/config/', { as: member })).body.ui_next, true);
  });

  it('shows paths to superusers only, with the directories a manual project may still use', async () => {
    const root = t.env.projectsRoot;
    for (const dir of ['free-playbooks', 'taken-playbooks', '.hidden', '_7__checkout']) await mkdir(path.join(root, dir), { recursive: true });
    const org = await newOrg(t);
    const project = await t.post('/api/v2/projects/', { name: 'Manual', organization: org.id, scm_type: '', local_path: 'taken-playbooks' });
    assert.equal(project.status, 201, project.text);

    const res = await t.get('/api/v2/config/');
    assert.equal(res.body.project_base_dir, root);
    assert.ok(res.body.project_local_paths.includes('free-playbooks'), JSON.stringify(res.body.project_local_paths));
    for (const hidden of ['taken-playbooks', '.hidden', '_7__checkout']) assert.ok(!res.body.project_local_paths.includes(hidden), hidden);
    assert.deepEqual(res.body.custom_virtualenvs, []);

    for (const who of [member, orgAdmin, orgAuditor, systemAuditor]) {
      const seen = await t.get('/api/v2/config/', { as: who });
      for (const key of [...PATHS, 'database_kind']) assert.ok(!(key in seen.body), `${who.username} sees ${key}`);
      assert.ok(!seen.text.includes(root) && !seen.text.includes(t.env.dataDir), `${who.username} sees a path`);
    }
  });

  it('gives custom_virtualenvs to those AWX gives it to: not to a plain member', async () => {
    for (const who of [orgAdmin, orgAuditor, systemAuditor]) {
      assert.deepEqual((await t.get('/api/v2/config/', { as: who })).body.custom_virtualenvs, [], who.username);
    }
    assert.ok(!('custom_virtualenvs' in (await t.get('/api/v2/config/', { as: member })).body));
  });

  it('changes nothing: other methods are refused', async () => {
    for (const who of [member, orgAdmin]) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await t.request(method, '/api/v2/config/', { as: who, body: { eula_accepted: true } });
        assert.ok([403, 405].includes(res.status), `${who.username} ${method}: ${res.status}`);
      }
    }
    // Not even a superuser: Drover has no subscription to upload or remove.
    for (const method of ['POST', 'DELETE']) assert.equal((await t.request(method, '/api/v2/config/', { body: {} })).status, 405, method);
  });
});
