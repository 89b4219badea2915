import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject, newUser, newWorkflow, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';
import { LINT_FILES } from './helpers/scanners.ts';
import { makeRepository } from './helpers/git.ts';

/**
 * The scanner gate with the real ansible-lint and yamllint, on a project whose playbooks break
 * their rules: enforce blocks with the rules named, warn keeps the summary in the explanation to
 * the end of the run, a threshold above the findings allows, and a second launch reads the cache.
 */
describe('scanner gate', () => {
  let t: TestApp;
  let org: number;
  let inventory: number;
  let project: number;
  let member: User;
  const templates: Record<string, number> = {};

  const scanner = async (fields: Record<string, unknown>) => {
    const res = await t.post('/api/v2/scanners/', { name: `s-${Math.random()}`, organization: org, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const launch = (playbook: string, as?: User) => t.post(`/api/v2/job_templates/${templates[playbook]}/launch/`, {}, as ? { as } : {});
  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs WHERE kind = $1', ['job']))[0].n;
  const results = async (query: string) => (await t.get(`/api/v2/scan_results/?order_by=id${query}`)).body.results;

  before(async () => {
    t = await createTestApp();
    assert.equal((await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: true, SCANNER_FAIL_MODE: 'open' })).status, 200);
    org = (await newOrg(t)).id;
    inventory = (await newInventory(t, org, { hosts: ['localhost'] })).id;
    project = (await newProject(t, org, { files: LINT_FILES })).id;
    for (const playbook of Object.keys(LINT_FILES).filter((f) => f.endsWith('.yml') && !f.includes('/'))) {
      templates[playbook] = (await newJobTemplate(t, { project, inventory, playbook })).id;
    }
    member = await newUser(t, { member: org });
    const role = (await t.get(`/api/v2/job_templates/${templates['lint.yml']}/`)).body.summary_fields.object_roles.execute_role.id;
    assert.equal((await t.post(`/api/v2/users/${member.id}/roles/`, { id: role })).status, 204);
  });
  beforeEach(async () => {
    await t.db.query('UPDATE scanners SET enabled = false');
  });
  after(async () => {
    await t?.close();
  });

  it('enforce: a playbook breaking ansible-lint rules is refused with the rules named, no run is left, and the result is kept', async () => {
    const s = await scanner({ tool: 'ansible-lint', enforcement: 'enforce', severity_threshold: 'high' });
    const before = await runCount();
    const res = await launch('lint.yml');
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.detail, 'Scanner blocked launch.');
    assert.match(res.body.reasons.join('\n'), /no-changed-when at lint\.yml:\d+/);
    assert.ok(res.body.findings.some((f: any) => f.rule_id === 'no-changed-when' && f.severity === 'high' && f.file_path === 'lint.yml' && f.line > 0 && f.url.startsWith('https://')));
    assert.equal(await runCount(), before);
    const [result] = await results(`&scanner=${s.id}`);
    assert.equal(result.status, 'blocked');
    assert.equal(result.unified_job, null);
    assert.equal(result.unified_job_template, templates['lint.yml']);
    assert.equal(result.cached, false);
    assert.ok(result.blocking_count >= 1);
    assert.match(result.scm_revision, /^[0-9a-f]{40}$/);
    const detail = (await t.get(`/api/v2/scan_results/${result.id}/`)).body;
    const finding = detail.findings.find((f: any) => f.rule_id === 'no-changed-when');
    assert.deepEqual(Object.keys(finding).sort(), ['blocking', 'file_path', 'line', 'message', 'rule_id', 'severity', 'url']);
    assert.equal(finding.blocking, true);
    // The deprecated module is found too (ansible-lint's deprecated-module rule).
    assert.ok(detail.findings.some((f: any) => f.rule_id === 'deprecated-module'), JSON.stringify(detail.findings.map((f: any) => f.rule_id)));
  });

  it('warn: the run goes on and keeps the findings\' summary in its explanation through to its end', async () => {
    await scanner({ tool: 'ansible-lint', enforcement: 'warn', severity_threshold: 'high' });
    const res = await launch('lint.yml');
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.job_explanation, /^Scanner warning: .*no-changed-when/);
    const job = await waitForRun(t, `/api/v2/jobs/${res.body.id}/`);
    assert.equal(job.status, 'successful', job.result_traceback);
    assert.match(job.job_explanation, /^Scanner warning: .*no-changed-when at lint\.yml/);
    const [result] = await results(`&unified_job=${job.id}`);
    assert.equal(result.status, 'warn');
  });

  it('a threshold above every finding allows the launch, and a second launch of the unchanged playbook reads the cache', async () => {
    // A configuration of its own: no earlier scan of this file is cached for it.
    const s = await scanner({ tool: 'ansible-lint', enforcement: 'enforce', severity_threshold: 'critical', config: 'skip_list: []\n' });
    const first = await launch('lint.yml');
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.job_explanation, '');
    const second = await launch('lint.yml');
    assert.equal(second.status, 201, second.text);
    const [a, b] = await results(`&scanner=${s.id}`);
    assert.equal(a.status, 'ok');
    assert.ok(a.finding_count > 0);
    assert.equal(a.blocking_count, 0);
    assert.equal(a.cached, false);
    assert.equal(b.cached, true);
    assert.equal(b.duration_ms, 0);
    assert.equal(b.unified_job, second.body.id);
    await waitForRun(t, `/api/v2/jobs/${first.body.id}/`);
    await waitForRun(t, `/api/v2/jobs/${second.body.id}/`);
  });

  it('yamllint: a YAML error blocks under enforce, and a clean playbook passes both tools', async () => {
    await scanner({ tool: 'yamllint', enforcement: 'enforce' });
    await scanner({ tool: 'ansible-lint', enforcement: 'enforce', config: 'skip_list:\n  - yaml\n' });
    const bad = await launch('yaml-error.yml');
    assert.equal(bad.status, 403, bad.text);
    assert.match(bad.body.reasons.join('\n'), /trailing-spaces at yaml-error\.yml:\d+/);
    const clean = await launch('clean.yml');
    assert.equal(clean.status, 201, JSON.stringify(clean.body));
    await waitForRun(t, `/api/v2/jobs/${clean.body.id}/`);
  });

  it('a scanner of workflow nodes reads the jobs workflows start, not the template launched alone; the node fails with the reasons', async () => {
    await scanner({ tool: 'ansible-lint', enforcement: 'enforce', applies_to: ['workflow_job_template_node'] });
    const alone = await launch('lint.yml');
    assert.equal(alone.status, 201, alone.text);
    const workflow = await newWorkflow(t, org, { nodes: { lint: { template: templates['lint.yml'] } } });
    const started = await t.post(`/api/v2/workflow_job_templates/${workflow.id}/launch/`, {});
    assert.equal(started.status, 201, started.text);
    const done = await waitForRun(t, `/api/v2/workflow_jobs/${started.body.id}/`);
    assert.equal(done.status, 'failed');
    const [node] = (await t.get(`/api/v2/workflow_jobs/${done.id}/workflow_nodes/`)).body.results;
    const job = (await t.get(`/api/v2/jobs/${node.job}/`)).body;
    assert.match(job.job_explanation, /detail: Scanner blocked launch\.; reasons: .*no-changed-when/);
    assert.doesNotMatch(job.job_explanation, /object Object/);
    await waitForRun(t, `/api/v2/jobs/${alone.body.id}/`);
  });

  it('ansible-lint reads an ad hoc command as a play of one task', async () => {
    await scanner({ tool: 'ansible-lint', enforcement: 'enforce', applies_to: ['ad_hoc_command'], config: 'skip_list:\n  - yaml\n' });
    const refused = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'shell', module_args: 'echo hi' });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.reasons.join('\n'), /no-changed-when at ad_hoc_command\.yml:\d+/);
    const allowed = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping', module_args: '' });
    assert.equal(allowed.status, 201, allowed.text);
    await waitForRun(t, `/api/v2/ad_hoc_commands/${allowed.body.id}/`);
  });

  it('a job whose project updates on launch is scanned again at the revision the update brought, before its playbook runs', async () => {
    await scanner({ tool: 'ansible-lint', enforcement: 'enforce', config: 'skip_list:\n  - yaml\n' });
    const repo = await makeRepository({ 'site.yml': LINT_FILES['clean.yml'] as string });
    const updating = (await newProject(t, org, { repo, scm_update_on_launch: true })).id;
    const job = (await newJobTemplate(t, { project: updating, inventory, playbook: 'site.yml' })).id;
    const fresh = await repo.commit({ 'site.yml': LINT_FILES['lint.yml'] as string, 'tasks/extra.yml': LINT_FILES['tasks/extra.yml'] as string }, 'A command without changed_when');
    // At launch the project still holds the clean commit: the launch's scan passes.
    const launched = await t.post(`/api/v2/job_templates/${job}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    const done = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`);
    assert.equal(done.status, 'failed');
    assert.match(done.job_explanation, new RegExp(`^Scanner blocked the run at revision ${fresh}: .*no-changed-when at site\\.yml`));
    const scans = await results(`&unified_job=${done.id}`);
    assert.deepEqual(scans.map((r: any) => [r.status, r.scm_revision === fresh]), [['ok', false], ['blocked', true]]);
    // Nothing of the playbook ran.
    assert.equal((await t.get(`/api/v2/jobs/${done.id}/job_events/?event=playbook_on_start`)).body.count, 0);
  });

  it('a plain user launching sees the refusal and the results of what they may see, nothing of another organization', async () => {
    await scanner({ tool: 'ansible-lint', enforcement: 'enforce' });
    const res = await launch('lint.yml', member);
    assert.equal(res.status, 403);
    assert.equal(res.body.detail, 'Scanner blocked launch.');
    const seen = (await t.get('/api/v2/scan_results/', { as: member })).body;
    assert.ok(seen.count >= 1);
    assert.ok(seen.results.every((r: any) => r.unified_job_template === templates['lint.yml']));
    const outsider = await newUser(t, { admin: (await newOrg(t)).id });
    assert.equal((await t.get('/api/v2/scan_results/', { as: outsider })).body.count, 0);
    const one = seen.results[0].id;
    assert.equal((await t.get(`/api/v2/scan_results/${one}/`, { as: outsider })).status, 403);
  });
});
