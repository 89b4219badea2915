import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { waitForRun } from './helpers/jobs.ts';

// The inventories choose the connection; the interpreter is found by Ansible.
const LOCAL = 'ansible_connection: local';

/** A playbook that tries to read what a run must not see, then does its real work. */
const probe = (paths: string[]) => `- hosts: all
  gather_facts: false
  tasks:
    - name: look around
      shell: |
${paths.map((p) => `        cat '${p}' 2>&1 || true; ls -A '${p}' 2>&1 || true`).join('\n')}
        cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' || true
        echo; echo "home=[$HOME]"
      register: seen
    - debug: var=seen.stdout_lines
    - name: the real work
      copy: { content: done, dest: "{{ playbook_dir }}/work.txt" }
    - debug: msg="real work done"
`;

describe('runs are isolated from the controller', () => {
  let t: TestApp;
  let repo: GitRepository;
  let member: User;
  let adminB: User;
  let jt: any;
  let inventoryB: number;
  let sentinel: string;
  let checkoutA: string;
  let markers: string;
  const secret = randomBytes(12).toString('hex');
  const count = async () => (await t.db.query(`SELECT count(*)::int AS n FROM unified_jobs`))[0].n as number;
  const stdout = async (url: string) => (await t.get(`${url}stdout/?format=txt`)).text;
  const exists = (file: string) => access(file).then(() => true, () => false);

  before(async () => {
    t = await createTestApp();
    markers = await mkdtemp(path.join(tmpdir(), 'isolation-markers-'));
    sentinel = path.join(t.env.dataDir, 'sentinel-key');
    await writeFile(sentinel, secret, { mode: 0o600 });
    const orgA = await newOrg(t);
    const orgB = await newOrg(t);
    repo = await makeRepository({ 'probe.yml': '- hosts: all\n  tasks: []\n', 'secret.txt': secret });
    const projectA = (await t.post('/api/v2/projects/', { name: 'Isolated A', organization: orgA.id, scm_type: 'git', scm_url: `file://${repo.bare}` })).body;
    assert.ok(projectA.local_path, JSON.stringify(projectA));
    checkoutA = path.join(t.env.projectsRoot, projectA.local_path);
    await repo.commit({ 'probe.yml': probe([sentinel, t.env.dataDir, checkoutA, path.join(checkoutA, 'secret.txt')]) });
    const update = await waitForRun(t, (await t.post(`/api/v2/projects/${projectA.id}/update/`, {})).body.url);
    assert.equal(update.status, 'successful', update.job_explanation);
    const inventoryA = (await t.post('/api/v2/inventories/', { name: 'Local A', organization: orgA.id, variables: LOCAL })).body.id;
    inventoryB = (await t.post('/api/v2/inventories/', { name: 'Local B', organization: orgB.id, variables: LOCAL })).body.id;
    await t.post('/api/v2/hosts/', { name: 'localhost', inventory: inventoryA });
    await t.post('/api/v2/hosts/', { name: 'localhost', inventory: inventoryB });
    const created = await t.post('/api/v2/job_templates/', {
      name: 'Probe', project: projectA.id, inventory: inventoryA, playbook: 'probe.yml', ask_variables_on_launch: true,
    });
    assert.equal(created.status, 201, created.text);
    jt = created.body;
    member = await newUser(t, { member: orgA });
    await grant(t, member, jt, 'execute_role');
    adminB = await newUser(t, { admin: orgB });
    assert.ok(await exists(path.join(checkoutA, 'secret.txt')), 'the checkout holds the file the runs look for');
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('a playbook launched by an execute-only member reads neither the key, the database nor a checkout, and does its work', async () => {
    const res = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {}, { as: member });
    assert.equal(res.status, 201, res.text);
    const job = await waitForRun(t, res.body.url, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    const out = await stdout(res.body.url);
    assert.ok(out.includes('real work done'), out);
    assert.ok(!out.includes(secret), `nothing of the service's files is read:\n${out}`);
    assert.ok(out.includes(`cat: ${sentinel}: No such file or directory`), out);
    const listing = out.split('TASK [debug]')[1] ?? '';
    assert.ok(!/pglite|secret_key|sentinel-key"|drover-run-/.test(listing.replace(/\/runs\/[^/]+\/drover-run-[^/ ]+/g, '')), `the data directory is empty inside:\n${out}`);
    assert.ok(!out.includes('src/main.ts') && !out.includes('--import'), `no process of the service is visible:\n${out}`);
    assert.ok(out.includes('home=[/root]') || out.includes(`home=[${process.env.HOME}]`), out);
  });

  it("another organization's admin: an ad hoc shell on localhost finds nothing of the service, and still runs", async () => {
    const command = `cat ${sentinel} || true; ls -A ${t.env.dataDir} ${checkoutA} || true; echo adhoc-ran`;
    const res = await t.post('/api/v2/ad_hoc_commands/', { inventory: inventoryB, module_name: 'shell', module_args: command, limit: 'localhost' }, { as: adminB });
    assert.equal(res.status, 201, res.text);
    const run = await waitForRun(t, res.body.url, 120_000);
    assert.equal(run.status, 'successful', run.job_explanation);
    const out = await stdout(res.body.url);
    assert.ok(out.includes('adhoc-ran'), out);
    assert.ok(!out.includes(secret), out);
    assert.ok(out.includes('No such file or directory'), out);
  });

  it('connection and interpreter variables at launch are refused with 400 naming them, for the member and the other admin; nothing runs', async () => {
    const marker = path.join(markers, 'interpreter');
    const hostile = { ansible_python_interpreter: `touch ${marker}; python3` };
    const before = await count();
    const refused = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: hostile }, { as: member });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.extra_vars[0], /"ansible_python_interpreter"/);
    for (const name of ['ansible_shell_executable', 'ansible_become_exe', 'ansible_ssh_common_args', 'ansible_ssh_executable']) {
      const res = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { [name]: 'x' } }, { as: member });
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.ok(res.body.extra_vars[0].includes(`"${name}"`), res.text);
    }
    // Ad hoc commands take no ansible_* variable at all, as in AWX.
    const adhoc = await t.post(
      '/api/v2/ad_hoc_commands/',
      { inventory: inventoryB, module_name: 'ping', limit: 'localhost', extra_vars: JSON.stringify({ ansible_python_interpreter: `touch ${marker}; python3` }) },
      { as: adminB },
    );
    assert.equal(adhoc.status, 400, adhoc.text);
    assert.match(adhoc.body.extra_vars.join(' '), /ansible_python_interpreter/);
    assert.equal(await count(), before, 'nothing is stored');
    assert.equal(await exists(marker), false);
  });

  it("the template's own variables and the inventory may set them; a launch may then override; a setting allows them all", async () => {
    // The inventory sets ansible_connection: the launcher may give it.
    const given = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { ansible_connection: 'local' } }, { as: member });
    assert.equal(given.status, 201, given.text);
    assert.equal((await waitForRun(t, given.body.url, 120_000)).status, 'successful');
    const refused = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { ansible_ssh_extra_args: '-o ProxyCommand=x' } }, { as: member });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { extra_vars: 'ansible_ssh_extra_args: ""' })).status, 200);
    const own = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { ansible_ssh_extra_args: '-o Compression=no' } }, { as: member });
    assert.equal(own.status, 201, own.text);
    await waitForRun(t, own.body.url, 120_000);
    await t.patch(`/api/v2/job_templates/${jt.id}/`, { extra_vars: '' });
    try {
      assert.equal((await t.patch('/api/v2/settings/jobs/', { ALLOW_CONNECTION_VARS_ON_LAUNCH: true })).status, 200);
      const allowed = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { ansible_become_exe: 'sudo' } }, { as: member });
      assert.equal(allowed.status, 201, allowed.text);
      await waitForRun(t, allowed.body.url, 120_000);
    } finally {
      await t.patch('/api/v2/settings/jobs/', { ALLOW_CONNECTION_VARS_ON_LAUNCH: false });
    }
  });

  it('a survey answer is a launch-time value too', async () => {
    const spec = { name: 'S', description: '', spec: [{ question_name: 'Python', variable: 'ansible_python_interpreter', type: 'text', required: false, max: 1024 }] };
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/survey_spec/`, spec)).status, 200);
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { survey_enabled: true, ask_variables_on_launch: false })).status, 200);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Plain A', organization: jt.organization })).body.id;
    await t.post('/api/v2/hosts/', { name: 'localhost', inventory });
    await t.patch(`/api/v2/job_templates/${jt.id}/`, { inventory });
    try {
      const before = await count();
      const res = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { extra_vars: { ansible_python_interpreter: 'touch x; python3' } }, { as: member });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.extra_vars[0], /"ansible_python_interpreter"/);
      assert.equal(await count(), before);
    } finally {
      await t.patch(`/api/v2/job_templates/${jt.id}/`, { survey_enabled: false, ask_variables_on_launch: true });
    }
  });

  it('/api/v2/config/ and the instance say whether this node isolates runs', async () => {
    const config = (await t.get('/api/v2/config/', { as: member })).body;
    assert.equal(config.run_isolation?.isolates_runs, true, JSON.stringify(config.run_isolation));
    const instance = (await t.get('/api/v2/instances/')).body.results[0];
    assert.equal(instance.isolates_runs, true, JSON.stringify(instance));
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AWX_ISOLATION_HIDE_PATHS: ['relative'] })).status, 400);
  });
});
