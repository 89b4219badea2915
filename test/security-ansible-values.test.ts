import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, grant, newOrg, newUser, type Credentials, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { INLINE_JINJA, moduleArgsHaveJinja } from '../src/ansible/jinja-markers.ts';
import { LEADING_DASH, NAMES_A_FILE, optionValueProblem } from '../src/ansible/option-values.ts';
import { extraVarsYaml } from '../src/ansible/extra-vars-file.ts';

// Prints every variable an attack may reach, so one run checks them all.
const SHOW = `- hosts: all
  gather_facts: false
  tasks:
    - name: show
      debug:
        msg: "own=[{{ own | default('unset') }}] given=[{{ given | default('unset') }}] answer=[{{ answer | default('unset') }}] cred=[{{ cred_var | default('unset') }}] env=[{{ lookup('env', 'CRED_ENV') }}]"
`;
const KEY = 'values-callback-key';

describe('values that reach Ansible are data, not templates', () => {
  let t: TestApp;
  let repo: GitRepository;
  let markers: string;
  let orgA: any;
  let orgB: any;
  let projectA: number;
  let inventoryA: number;
  let inventoryB: number;
  let projectB: number;
  let jt: any;
  let probeType: number;
  let machineType: number;
  let vaultType: number;
  let member: User;
  let adminB: User;
  let memberJob: any;

  const marker = (name: string) => path.join(markers, name);
  const lookup = (name: string) => `{{ lookup('pipe', 'touch ${marker(name)}') }}`;
  const exists = (file: string) => access(file).then(() => true, () => false);
  const assertNoMarkers = async () => {
    for (const name of ['launch', 'survey', 'cred', 'relaunch', 'callback', 'limit', 'machine', 'adhoc']) assert.equal(await exists(marker(name)), false, `${name}: the lookup ran`);
  };
  const count = async (table: string, where = 'true') => (await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0].n as number;
  /** Sends a request that must be refused with `status` and store nothing in `table`. */
  const refused = async (status: number, table: string, send: () => Promise<{ status: number; body: any; text: string }>) => {
    const before = await count(table);
    const res = await send();
    assert.equal(res.status, status, res.text);
    assert.equal(await count(table), before, 'nothing is stored');
    return res.body;
  };
  const stdout = async (job: any) => (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;

  before(async () => {
    t = await createTestApp();
    markers = await mkdtemp(path.join(tmpdir(), 'values-markers-'));
    // Runs see the markers directory (read-write), so a lookup that ran would leave its marker.
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AWX_ISOLATION_SHOW_PATHS: [`${markers}:${markers}:rw`] })).status, 200);
    repo = await makeRepository({ 'show.yml': SHOW });
    orgA = await newOrg(t);
    orgB = await newOrg(t);
    const local = 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3';
    projectA = (await t.post('/api/v2/projects/', { name: 'Plays A', organization: orgA.id, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    projectB = (await t.post('/api/v2/projects/', { name: 'Plays B', organization: orgB.id, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, projectA);
    await firstProjectUpdate(t, projectB);
    inventoryA = (await t.post('/api/v2/inventories/', { name: 'Local A', organization: orgA.id, variables: local })).body.id;
    inventoryB = (await t.post('/api/v2/inventories/', { name: 'Local B', organization: orgB.id, variables: local })).body.id;
    assert.equal((await t.post('/api/v2/hosts/', { name: 'web1', inventory: inventoryA, variables: 'ansible_host: 127.0.0.1' })).status, 201);
    assert.equal((await t.post('/api/v2/hosts/', { name: 'web1', inventory: inventoryB })).status, 201);

    const created = await t.post('/api/v2/job_templates/', {
      name: 'Show', project: projectA, inventory: inventoryA, playbook: 'show.yml', extra_vars: 'own: "{{ 1 + 1 }}"', host_config_key: KEY,
      ask_variables_on_launch: true, ask_limit_on_launch: true, ask_tags_on_launch: true, ask_skip_tags_on_launch: true,
    });
    assert.equal(created.status, 201, created.text);
    jt = created.body;
    const spec = { name: 'S', description: '', spec: [{ question_name: 'Answer', variable: 'answer', type: 'text', required: false, max: 1024 }] };
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/survey_spec/`, spec)).status, 200);
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { survey_enabled: true })).status, 200);

    // A custom type whose input reaches both an extra var and the environment.
    const type = await t.post('/api/v2/credential_types/', {
      name: 'Values Probe', kind: 'cloud',
      inputs: { fields: [{ id: 'tag', label: 'Tag' }] },
      injectors: { extra_vars: { cred_var: '{{ tag }}' }, env: { CRED_ENV: '{{ tag }}' } },
    });
    assert.equal(type.status, 201, type.text);
    probeType = type.body.id;
    machineType = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    vaultType = (await t.get('/api/v2/credential_types/?namespace=vault')).body.results[0].id;
    const probe = (await t.post('/api/v2/credentials/', { name: 'probe', organization: orgA.id, credential_type: probeType, inputs: { tag: 'plain' } })).body.id;
    // As if stored before inputs were checked: the run must still treat it as data.
    await t.db.query(`UPDATE credentials SET inputs = jsonb_build_object('tag', $2::text) WHERE id = $1`, [probe, lookup('cred')]);
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id: probe })).status, 204);

    member = await newUser(t, { member: orgA });
    await grant(t, member, jt, 'execute_role');
    adminB = await newUser(t, { admin: orgB });
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('an execute-only member: launch extra vars, survey answers and credential values are printed, never evaluated; the template var renders', async () => {
    const res = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { given: lookup('launch'), answer: lookup('survey') } }, { as: member });
    assert.equal(res.status, 201, res.text);
    memberJob = await waitForRun(t, res.body.url, 120_000);
    assert.equal(memberJob.status, 'successful', memberJob.job_explanation);
    const out = await stdout(memberJob);
    assert.ok(out.includes('own=[2]'), "the template's own extra var is a template under 'template'");
    for (const [name, value] of [['given', lookup('launch')], ['answer', lookup('survey')], ['cred', lookup('cred')], ['env', lookup('cred')]]) {
      assert.ok(out.includes(`${name}=[${value}]`), `${name} printed as given:\n${out}`);
    }
    await assertNoMarkers();
  });

  it('a relaunch by the member keeps them data', async () => {
    const res = await t.post(`/api/v2/jobs/${memberJob.id}/relaunch/`, {}, { as: member });
    assert.equal(res.status, 201, res.text);
    const job = await waitForRun(t, `/api/v2/jobs/${res.body.job}/`, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.ok((await stdout(job)).includes(`given=[${lookup('launch')}]`));
    await assertNoMarkers();
  });

  it('provisioning callback extra vars are data', async () => {
    const res = await t.post(`/api/v2/job_templates/${jt.id}/callback/`, { host_config_key: KEY, extra_vars: { given: lookup('callback') } }, { as: null });
    assert.equal(res.status, 201, res.text);
    const job = await waitForRun(t, res.headers.location as string, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.ok((await stdout(job)).includes(`given=[${lookup('callback')}]`));
    await assertNoMarkers();
  });

  it("the second organization's admin cannot launch, relaunch or change the template: 403 and nothing stored", async () => {
    await refused(403, 'unified_jobs', () => t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { given: lookup('launch') } }, { as: adminB }));
    await refused(403, 'unified_jobs', () => t.post(`/api/v2/jobs/${memberJob.id}/relaunch/`, {}, { as: adminB }));
    await refused(403, 'unified_jobs', () => t.post('/api/v2/ad_hoc_commands/', { inventory: inventoryA, module_args: 'echo hi', limit: '@/etc/passwd' }, { as: adminB }));
    const patched = await t.patch(`/api/v2/job_templates/${jt.id}/`, { extra_vars: `own: "${lookup('launch')}"`, limit: '@/etc/passwd' }, { as: adminB });
    assert.ok([403, 404].includes(patched.status), patched.text);
    const stored = (await t.get(`/api/v2/job_templates/${jt.id}/`)).body;
    assert.equal(stored.extra_vars, 'own: "{{ 1 + 1 }}"');
    assert.equal(stored.limit, '');
    await refused(403, 'credentials', () => t.post('/api/v2/credentials/', { name: 'x', organization: orgA.id, credential_type: machineType, inputs: { username: 'ok' } }, { as: adminB }));
  });

  it("ALLOW_JINJA_IN_EXTRA_VARS: 'never' keeps the template's own var a literal; 'always' templates launch vars but never credential vars", async () => {
    const options = (await t.request('OPTIONS', '/api/v2/settings/jobs/')).body.actions.GET.ALLOW_JINJA_IN_EXTRA_VARS;
    assert.equal(options.label, 'When can extra variables contain Jinja templates?');
    assert.deepEqual(options.choices.map((c: string[]) => c[0]).sort(), ['always', 'never', 'template']);
    assert.equal((await t.get('/api/v2/settings/jobs/')).body.ALLOW_JINJA_IN_EXTRA_VARS, 'template');
    assert.equal((await t.patch('/api/v2/settings/jobs/', { ALLOW_JINJA_IN_EXTRA_VARS: 'sometimes' })).status, 400);
    try {
      assert.equal((await t.patch('/api/v2/settings/jobs/', { ALLOW_JINJA_IN_EXTRA_VARS: 'never' })).status, 200);
      const never = await waitForRun(t, (await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {})).body.url, 120_000);
      assert.equal(never.status, 'successful', never.job_explanation);
      assert.ok((await stdout(never)).includes('own=[{{ 1 + 1 }}]'));

      assert.equal((await t.patch('/api/v2/settings/jobs/', { ALLOW_JINJA_IN_EXTRA_VARS: 'always' })).status, 200);
      // The control: the same lookup, where the admin allowed templates, does run.
      const launched = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { given: '{{ 3 + 4 }}', answer: lookup('control') } });
      const always = await waitForRun(t, launched.body.url, 120_000);
      assert.equal(always.status, 'successful', always.job_explanation);
      const out = await stdout(always);
      assert.ok(out.includes('own=[2] given=[7] answer=[]'), out);
      assert.equal(await exists(marker('control')), true, 'the lookup ran where templates were allowed');
      assert.ok(out.includes(`cred=[${lookup('cred')}]`), 'credential extra vars stay data');
    } finally {
      await t.patch('/api/v2/settings/jobs/', { ALLOW_JINJA_IN_EXTRA_VARS: 'template' });
    }
    await assertNoMarkers();
  });

  it('limits, tags and start_at_task that name a file, read as an option or hold Jinja are refused on save and at launch', async () => {
    const launch = (body: Record<string, unknown>) => () => t.post(`/api/v2/job_templates/${jt.id}/launch/`, body, { as: member });
    for (const limit of ['@/etc/passwd', 'web1,@/etc/passwd', 'web1, @/etc/passwd', 'web1:@/etc/passwd', 'web1 @/etc/passwd', 'web1]@/etc/passwd']) {
      assert.deepEqual(await refused(400, 'unified_jobs', launch({ limit })), { limit: [NAMES_A_FILE] }, limit);
    }
    assert.deepEqual(await refused(400, 'unified_jobs', launch({ limit: '-e@/etc/passwd' })), { limit: [LEADING_DASH] });
    assert.deepEqual(await refused(400, 'unified_jobs', launch({ limit: lookup('limit') })), { limit: [INLINE_JINJA] });
    assert.deepEqual(await refused(400, 'unified_jobs', launch({ job_tags: '--flush-cache', skip_tags: '@/etc/passwd' })), { job_tags: [LEADING_DASH], skip_tags: [NAMES_A_FILE] });

    // On save: the template's own fields, for its admin and for the other organization's admin on a template of theirs.
    for (const [field, value, message] of [['limit', 'web1,@/etc/passwd', NAMES_A_FILE], ['job_tags', '-t', LEADING_DASH], ['start_at_task', '@x', NAMES_A_FILE]]) {
      assert.deepEqual((await t.patch(`/api/v2/job_templates/${jt.id}/`, { [field]: value })).body, { [field]: [message] });
      assert.deepEqual(
        await refused(400, 'job_templates', () => t.post('/api/v2/job_templates/', { name: `B ${field}`, project: projectB, inventory: inventoryB, playbook: 'show.yml', [field]: value }, { as: adminB })),
        { [field]: [message] },
      );
    }
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.limit, '');
    const fine = await t.patch(`/api/v2/job_templates/${jt.id}/`, { limit: 'web1,web2:!web3:&all', job_tags: 'a,b', start_at_task: 'show me' });
    assert.equal(fine.status, 200, fine.text);
    await t.patch(`/api/v2/job_templates/${jt.id}/`, { limit: '', job_tags: '', start_at_task: '' });

    // A value stored before the check is refused at relaunch too.
    await t.db.query(`UPDATE unified_jobs SET "limit" = '@/etc/passwd' WHERE id = $1`, [memberJob.id]);
    assert.deepEqual(await refused(400, 'unified_jobs', () => t.post(`/api/v2/jobs/${memberJob.id}/relaunch/`, {}, { as: member })), { limit: [NAMES_A_FILE] });
    await t.db.query(`UPDATE unified_jobs SET "limit" = '' WHERE id = $1`, [memberJob.id]);

    const source = await t.post('/api/v2/inventory_sources/', { inventory: inventoryB, name: 'src', source: 'scm', source_project: projectB, source_path: 'show.yml', limit: '@/etc/passwd' }, { as: adminB });
    assert.equal(source.status, 400, source.text);
    assert.deepEqual(source.body.limit, [NAMES_A_FILE]);
  });

  it('ad hoc: module arguments holding Jinja in any spelling and option or file limits are refused, nothing stored', async () => {
    const adhoc = (body: Record<string, unknown>, as: Credentials) => () => t.post('/api/v2/ad_hoc_commands/', { module_name: 'shell', ...body }, { as });
    const variants = [
      '{{ "}" ~ 7*7 }}', 'echo {{ "}" ~ 7*7 }}', 'echo {{- 7*7 -}}', 'echo {%+ if true %}x{% endif %}', 'echo {#- c -#}', 'echo {{}',
      `echo ${lookup('adhoc')}`, 'chdir=\\x7b\\x7b 7*7 \\x7d\\x7d echo', 'chdir=\\u007b\\u007b 7*7 }} echo', 'chdir=\\U0000007b\\U0000007b 7*7 }} echo',
      '{"cmd": "echo \\u007b\\u007b 7*7 }}"}', 'chdir=\\N{LEFT CURLY BRACKET}\\N{LEFT CURLY BRACKET} 7*7 }} echo', 'echo \\x7b% if 1 %}',
    ];
    for (const module_args of variants) {
      assert.deepEqual(await refused(400, 'unified_jobs', adhoc({ inventory: inventoryB, module_args }, adminB)), { module_args: [INLINE_JINJA] }, module_args);
      await refused(403, 'unified_jobs', adhoc({ inventory: inventoryA, module_args }, member));
    }
    for (const limit of ['@/etc/passwd', 'web1:@/etc/passwd', 'all,@/etc/passwd']) {
      assert.deepEqual(await refused(400, 'unified_jobs', adhoc({ inventory: inventoryB, module_args: 'id', limit }, adminB)), { limit: [NAMES_A_FILE] }, limit);
    }
    assert.deepEqual(await refused(400, 'unified_jobs', adhoc({ inventory: inventoryB, module_args: 'id', limit: '-e@/etc/passwd' }, adminB)), { limit: [LEADING_DASH] });
    // The host pattern of an ad hoc command becomes a play's hosts, which Ansible templates.
    assert.deepEqual(await refused(400, 'unified_jobs', adhoc({ inventory: inventoryB, module_args: 'id', limit: `${lookup('adhoc')}web1` }, adminB)), { limit: [INLINE_JINJA] });

    // Stored before the checks: a relaunch is refused.
    const [old] = await t.db.query(
      `INSERT INTO unified_jobs (kind, name, status, inventory_id, organization_id, module_name, module_args, job_type) VALUES ('ad_hoc_command', 'shell', 'successful', $1, $2, 'shell', $3, 'run') RETURNING id`,
      [inventoryB, orgB.id, `echo ${lookup('adhoc')}`],
    );
    assert.deepEqual(await refused(400, 'unified_jobs', () => t.post(`/api/v2/ad_hoc_commands/${old.id}/relaunch/`, {}, { as: adminB })), { module_args: [INLINE_JINJA] });
    await assertNoMarkers();
  });

  it('module arguments: only real Jinja openings count', () => {
    for (const fine of ['echo { {', 'echo { % x % }', 'echo {}', 'echo }}', 'echo %}', "awk '{print $1}' /etc/hostname", 'chdir=\\x7b echo', 'echo \\\\x7b']) {
      assert.equal(moduleArgsHaveJinja(fine), false, fine);
    }
    assert.equal(optionValueProblem('web1,web2:!web3:&db*', 'pattern'), null);
    assert.equal(optionValueProblem('user@example', 'pattern'), null);
    assert.equal(optionValueProblem('web1,\x1f@/etc/passwd', 'pattern'), NAMES_A_FILE);
  });

  it('credential inputs that reach a run may hold no Jinja, and command-line ones may not read as options', async () => {
    const create = (inputs: Record<string, unknown>, owner: Record<string, unknown>, as: Credentials, credential_type = machineType) => () =>
      t.post('/api/v2/credentials/', { name: `c${Math.random()}`, credential_type, inputs, ...owner }, { as });
    const cases: [number, Record<string, unknown>, string, string][] = [
      [machineType, { username: lookup('machine') }, 'username', INLINE_JINJA],
      [machineType, { username: '-oProxyCommand=touch /tmp/x' }, 'username', 'May not start with "-": Ansible would read it as an option.'],
      [machineType, { username: 'deploy', become_username: '{%- if 1 %}root{% endif %}' }, 'become_username', INLINE_JINJA],
      [machineType, { become_method: '{# x #}sudo' }, 'become_method', INLINE_JINJA],
      [vaultType, { vault_password: 'pw', vault_id: '-x' }, 'vault_id', 'May not start with "-": Ansible would read it as an option.'],
      [probeType, { tag: lookup('cred') }, 'tag', INLINE_JINJA],
    ];
    for (const [type, inputs, field, message] of cases) {
      for (const [as, owner] of [[member, { user: member.id }], [adminB, { organization: orgB.id }]] as const) {
        const body = await refused(400, 'credentials', create(inputs, owner, as, type));
        assert.deepEqual(body, { inputs: { [field]: [message] } }, `${field} as ${as.username}`);
      }
    }
    const fine = await t.post('/api/v2/credentials/', { name: 'fine', organization: orgB.id, credential_type: machineType, inputs: { username: 'deploy', become_username: 'root', become_method: 'sudo' } }, { as: adminB });
    assert.equal(fine.status, 201, fine.text);
  });

  it("a Machine username with Jinja stored before the check stops the run with AWX's message, and nothing is evaluated", async () => {
    const machine = (await t.post('/api/v2/credentials/', { name: 'machine', organization: orgA.id, credential_type: machineType, inputs: { username: 'deploy' } })).body.id;
    await t.db.query(`UPDATE credentials SET inputs = jsonb_build_object('username', $2::text) WHERE id = $1`, [machine, lookup('machine')]);
    const other = (await t.post('/api/v2/job_templates/', { name: 'Machine', project: projectA, inventory: inventoryA, playbook: 'show.yml' })).body;
    assert.equal((await t.post(`/api/v2/job_templates/${other.id}/credentials/`, { id: machine })).status, 204);
    const job = await waitForRun(t, (await t.post(`/api/v2/job_templates/${other.id}/launch/`, {})).body.url, 120_000);
    assert.equal(job.status, 'error');
    assert.match(job.job_explanation, /Inline Jinja variables are not allowed\./);
    await assertNoMarkers();
  });

  it('the extra vars file tags untrusted strings !unsafe, keys and nested values included', () => {
    const yaml = extraVarsYaml({ own: '{{ 1 }}', given: { list: ['{{ x }}', 3] } }, { cred_var: '{{ y }}', own: 'shadowed' }, { own: '{{ 1 }}', given: 'other' });
    assert.equal(yaml, '{"cred_var": !unsafe "{{ y }}", "own": "{{ 1 }}", "given": {"list": [!unsafe "{{ x }}", 3]}}\n');
    assert.equal(extraVarsYaml({ a: '\u0085\u2028' }, {}, {}), '{"a": !unsafe "\\u0085\\u2028"}\n');
  });
});
