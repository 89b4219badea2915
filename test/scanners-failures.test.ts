import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';

/**
 * Scans that do not finish: an ansible-lint that outlives its time limit and a yamllint that
 * fails, found first on the PATH (as a broken installation would be), under each SCANNER_FAIL_MODE.
 */
describe('scanner failures', () => {
  let t: TestApp;
  let org: number;
  let template: number;
  const launch = () => t.post(`/api/v2/job_templates/${template}/launch/`, {});
  const failMode = async (mode: 'open' | 'closed') =>
    assert.equal((await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: true, SCANNER_FAIL_MODE: mode })).status, 200);
  const only = async (fields: Record<string, unknown>) => {
    await t.db.query('UPDATE scanners SET enabled = false');
    const res = await t.post('/api/v2/scanners/', { name: `s-${Math.random()}`, organization: org, enforcement: 'enforce', ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const resultsOf = async (scanner: number) => (await t.get(`/api/v2/scan_results/?scanner=${scanner}&order_by=id`)).body.results;

  before(async () => {
    const tools = await mkdtemp(path.join(tmpdir(), 'broken-tools-'));
    await writeFile(path.join(tools, 'ansible-lint'), '#!/bin/sh\nexec sleep 60\n');
    await writeFile(path.join(tools, 'yamllint'), '#!/bin/sh\necho "yamllint: internal error" >&2\nexit 7\n');
    await chmod(path.join(tools, 'ansible-lint'), 0o755);
    await chmod(path.join(tools, 'yamllint'), 0o755);
    process.env.PATH = `${tools}:${process.env.PATH}`;
    t = await createTestApp();
    org = (await newOrg(t)).id;
    const inventory = (await newInventory(t, org, { hosts: ['localhost'] })).id;
    const project = (await newProject(t, org)).id;
    template = (await newJobTemplate(t, { project, inventory })).id;
  });
  after(async () => {
    await t?.close();
  });

  for (const [tool, status, why] of [['ansible-lint', 'timeout', /did not finish within 1 s/], ['yamllint', 'error', /yamllint failed \(exit code 7\): yamllint: internal error/]] as const) {
    it(`${tool} ${status}: open lets the launch go with a warning, closed refuses it; neither is cached`, async () => {
      const scanner = await only({ tool, timeout: 1 });
      await failMode('open');
      const allowed = await launch();
      assert.equal(allowed.status, 201, allowed.text);
      assert.match(allowed.body.job_explanation, why);
      assert.match(allowed.body.job_explanation, /launch allowed \(SCANNER_FAIL_MODE is open\)/);
      await failMode('closed');
      const refused = await launch();
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.detail, 'Scanner blocked launch.');
      assert.match(refused.body.reasons[0], why);
      assert.match(refused.body.reasons[0], /SCANNER_FAIL_MODE is closed/);
      const results = await resultsOf(scanner);
      assert.deepEqual(results.map((r: any) => [r.status, r.cached, r.unified_job === null]), [[status, false, false], [status, false, true]]);
      await waitForRun(t, `/api/v2/jobs/${allowed.body.id}/`);
    });
  }

  it('a scanner that only warns never refuses for a failed scan, even when closed', async () => {
    await only({ tool: 'yamllint', enforcement: 'warn' });
    await failMode('closed');
    const res = await launch();
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.job_explanation, /launch allowed \(the scanner only warns\)/);
    await waitForRun(t, `/api/v2/jobs/${res.body.id}/`);
  });
});
