import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { runCollectionPlay, type PlaybookRun } from './helpers/awx-collection.ts';

const PLAYBOOK = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=from-the-collection\n';
const SURVEY = {
  name: 'Where',
  description: 'Where to run',
  spec: [{ question_name: 'Region', variable: 'region', type: 'multiplechoice', choices: ['eu', 'us'], default: 'eu', required: true }],
};

/**
 * AWX's own clients work unchanged: playbooks using the awx.awx collection (Debian's ansible
 * package) manage Drover as they manage AWX, logging in with a password (the collection makes
 * itself a token) and with a token made by its token module.
 */
describe('the awx.awx collection against a running service', () => {
  let t: TestApp;
  let host: string;
  let repo: GitRepository;
  let setup: PlaybookRun;

  const task = (name: string, module: string, args: object, extra: object = {}) => ({ name, [`awx.awx.${module}`]: args, ...extra });

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address() as { port: number };
    host = `http://127.0.0.1:${address.port}`;
    repo = await makeRepository({ 'site.yml': PLAYBOOK, 'inventory.ini': 'from-source ansible_connection=local\n' });
    setup = await runCollectionPlay(host, ADMIN, [
      task('organization', 'organization', { name: 'Collection Org', description: 'made by awx.awx' }),
      task('team', 'team', { name: 'Collection Team', organization: 'Collection Org' }),
      task('user', 'user', { username: 'collector', password: 'collector-pw-1', email: 'collector@example.com', first_name: 'Col' }),
      task('credential type', 'credential_type', {
        name: 'Collection Token Type',
        kind: 'cloud',
        inputs: { fields: [{ id: 'api_token', type: 'string', label: 'API token', secret: true }] },
        injectors: { env: { COLLECTION_TOKEN: '{{ "{{" }} api_token {{ "}}" }}' } },
      }),
      task('machine credential', 'credential', { name: 'Collection Machine', organization: 'Collection Org', credential_type: 'Machine', inputs: { username: 'deploy', password: 'deploy-secret' } }),
      task('custom credential', 'credential', { name: 'Collection API', organization: 'Collection Org', credential_type: 'Collection Token Type', inputs: { api_token: 'tok-123' } }),
      task('project', 'project', { name: 'Collection Project', organization: 'Collection Org', scm_type: 'git', scm_url: `file://${repo.bare}`, wait: true }),
      task('project copy', 'project', { name: 'Collection Project Copy', copy_from: 'Collection Project', organization: 'Collection Org' }),
      task('inventory (default arguments)', 'inventory', { name: 'Collection Inventory', organization: 'Collection Org' }),
      // This collection sends enabled: null unless told, which AWX (and Drover) store as false.
      task('host', 'host', { name: 'collected-host', inventory: 'Collection Inventory', enabled: true, variables: { ansible_connection: 'local' } }),
      task('group', 'group', { name: 'collected', inventory: 'Collection Inventory', hosts: ['collected-host'], variables: { tier: 'web' } }),
      task('inventory source', 'inventory_source', { name: 'Collection Source', inventory: 'Collection Inventory', source: 'scm', source_project: 'Collection Project', source_path: 'inventory.ini' }),
      task('label', 'label', { name: 'collected', organization: 'Collection Org' }),
      task('execution environment', 'execution_environment', { name: 'Collection EE', image: 'quay.io/example/ee:latest' }),
      task('instance group', 'instance_group', { name: 'Collection Group' }),
      task('job template', 'job_template', {
        name: 'Collection Template',
        project: 'Collection Project',
        inventory: 'Collection Inventory',
        playbook: 'site.yml',
        credentials: ['Collection Machine'],
        labels: ['collected'],
        survey_enabled: true,
        survey_spec: SURVEY,
        ask_variables_on_launch: true,
      }),
      task('job launch', 'job_launch', { job_template: 'Collection Template', extra_vars: { region: 'us' } }, { register: 'launched' }),
      task('job wait', 'job_wait', { job_id: '{{ launched.id }}', timeout: 120 }),
      task('ad hoc command (default arguments)', 'ad_hoc_command', { inventory: 'Collection Inventory', module_name: 'ping', credential: 'Collection Machine', wait: true }),
      task('role', 'role', { user: 'collector', role: 'execute', job_templates: ['Collection Template'] }),
      task('team role', 'role', { team: 'Collection Team', role: 'read', organization: 'Collection Org' }),
      task('token', 'token', { description: 'made by the collection', scope: 'write' }, { register: 'made_token' }),
      task('setting by name', 'settings', { name: 'AWX_ROLES_ENABLED', value: false }),
      task('settings as a mapping', 'settings', { settings: { AWX_TASK_ENV: { COLLECTION: 'yes' } } }),
    ]);
  });
  after(async () => {
    await t?.close();
    await repo?.remove();
  });

  it('every module succeeds with the password login, and prints no error', () => {
    assert.deepEqual(setup.failures, []);
    assert.deepEqual(setup.warnings.filter((w) => /error/i.test(w)), []);
  });

  it('what the modules made is stored as they asked', async () => {
    const org = (await t.get('/api/v2/organizations/Collection Org/')).body;
    assert.equal(org.description, 'made by awx.awx');
    const inventory = (await t.get('/api/v2/inventories/?name=Collection Inventory')).body.results[0];
    assert.equal(inventory.kind, '');
    const group = (await t.get(`/api/v2/groups/?name=collected&inventory=${inventory.id}`)).body.results[0];
    assert.deepEqual((await t.get(`/api/v2/groups/${group.id}/hosts/`)).body.results.map((h: { name: string }) => h.name), ['collected-host']);
    const template = (await t.get('/api/v2/job_templates/?name=Collection Template')).body.results[0];
    assert.deepEqual((await t.get(`/api/v2/job_templates/${template.id}/survey_spec/`)).body.spec[0].choices, ['eu', 'us']);
    const job = setup.tasks.find((o) => o.task === 'job launch')!.result;
    const finished = (await t.get(`/api/v2/jobs/${job.id}/`)).body;
    assert.equal(finished.status, 'successful');
    assert.match((await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text, /from-the-collection/);
    const copy = (await t.get('/api/v2/projects/?name=Collection Project Copy')).body.results[0];
    assert.equal(copy?.scm_url, `file://${repo.bare}`);
    const collector = (await t.get('/api/v2/users/?username=collector')).body.results[0];
    const roles = (await t.get(`/api/v2/users/${collector.id}/roles/`)).body.results.map((r: { name: string; summary_fields: any }) => `${r.summary_fields.resource_name}:${r.name}`);
    assert.ok(roles.includes('Collection Template:Execute'), roles.join(', '));
    const settings = (await t.get('/api/v2/settings/all/')).body;
    assert.equal(settings.AWX_ROLES_ENABLED, false);
    assert.deepEqual(settings.AWX_TASK_ENV, { COLLECTION: 'yes' });
  });

  it('the token the collection made authenticates it, and a second run changes nothing', async () => {
    const made = setup.tasks.find((o) => o.task === 'token')!.result;
    const token = made.ansible_facts?.controller_token?.token;
    assert.ok(token, JSON.stringify(made).slice(0, 300));
    const again = await runCollectionPlay(host, { token }, [
      task('organization again', 'organization', { name: 'Collection Org', description: 'made by awx.awx' }),
      task('inventory again', 'inventory', { name: 'Collection Inventory', organization: 'Collection Org' }),
      task('host again', 'host', { name: 'collected-host', inventory: 'Collection Inventory', enabled: true, variables: { ansible_connection: 'local' } }),
      task('job template again', 'job_template', { name: 'Collection Template', project: 'Collection Project', inventory: 'Collection Inventory', playbook: 'site.yml' }),
      task('job list', 'job_list', { query: { name: 'Collection Template' } }, { register: 'listed' }),
    ]);
    assert.deepEqual(again.failures, []);
    assert.deepEqual(again.tasks.filter((o) => o.changed).map((o) => o.task), []);
    assert.ok(again.tasks.find((o) => o.task === 'job list')!.result.count >= 1);
  });
});
