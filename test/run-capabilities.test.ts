import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newInventory, newJobTemplate, newOrg, newProject, newUser, type TestApp, type User } from './helpers/app.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

const HELLO = `- hosts: all
  gather_facts: false
  tasks:
    - debug: msg=hello
`;

/**
 * unified_jobs lists a run only to whoever may read it on its own page, and
 * summary_fields.user_capabilities of a finished run is the same wherever it is read: its own page,
 * its kind's list and the unified list (AWX's UnifiedJobListSerializer serializes each row as its
 * kind's list does), and `start` is given to whoever may relaunch it.
 */
describe('finished runs in the unified list: who sees them and their capabilities', () => {
  let t: TestApp;
  let executor: User;
  let auditor: User;
  let projectAdmin: User;
  const runs: { url: string; type: string; id: number }[] = [];

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t);
    const project = await newProject(t, org, { files: { 'hello.yml': HELLO } });
    const inventory = await newInventory(t, org, { hosts: ['h1'] });
    const other = await newInventory(t, org, { hosts: ['h1'] });
    const template = await newJobTemplate(t, { project: project.id, inventory: inventory.id, ask_inventory_on_launch: true });
    executor = await newUser(t, { member: org });
    await grant(t, executor, template, 'execute_role');
    auditor = await newUser(t, { auditor: org });
    projectAdmin = await newUser(t, { member: org });
    await grant(t, projectAdmin, project, 'admin_role');
    runs.push(await firstProjectUpdate(t, project.id));
    for (const body of [{}, { inventory: other.id }]) {
      const res = await t.post(`/api/v2/job_templates/${template.id}/launch/`, body);
      assert.equal(res.status, 201, res.text);
      runs.push(await waitForRun(t, res.body.url, 120_000));
    }
  });
  after(() => t.close());

  /** The capabilities of each run as `who` reads them from `url` (a list), by run URL. */
  async function capabilitiesIn(who: User | undefined, url: string): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    for (let next: string | null = url; next; ) {
      const res = await t.get(next, { as: who });
      assert.equal(res.status, 200, res.text);
      for (const row of res.body.results) found.set(row.url, row.summary_fields.user_capabilities);
      next = res.body.next;
    }
    return found;
  }

  it('answers start alike on the run, its kind list and the unified list, for each caller', async () => {
    const [update, job, jobElsewhere] = runs;
    const expected: [string, User | undefined, Record<string, boolean | undefined>][] = [
      ['admin', undefined, { [update.url]: true, [job.url]: true, [jobElsewhere.url]: true }],
      // May execute the template, but not use the inventory the second job was launched with.
      ['executor', executor, { [job.url]: true, [jobElsewhere.url]: false }],
      ['auditor', auditor, { [update.url]: false, [job.url]: false, [jobElsewhere.url]: false }],
      // Reads the project, not the template: its updates, not the template's jobs (AWX's JobAccess).
      ['project admin', projectAdmin, { [update.url]: true }],
    ];
    for (const [name, who, starts] of expected) {
      const unified = await capabilitiesIn(who, '/api/v2/unified_jobs/');
      const unifiedByOne = await capabilitiesIn(who, '/api/v2/unified_jobs/?page_size=1');
      for (const run of runs) {
        const own = await t.get(run.url, { as: who });
        if (!(run.url in starts)) {
          // A run whose own page is refused is in no list of its caller (AWX: the union of each kind's access).
          assert.equal(own.status, 403, `${name} may not read ${run.url}`);
          assert.ok(!unified.has(run.url), `${name} does not see ${run.url} in unified_jobs`);
          continue;
        }
        assert.equal(own.status, 200, own.text);
        const capabilities = own.body.summary_fields.user_capabilities;
        assert.equal(capabilities.start, starts[run.url], `start of ${run.url} for ${name}`);
        const kindList = await capabilitiesIn(who, `/api/v2/${run.url.split('/')[3]}/?id=${run.id}`);
        const unifiedOfType = await capabilitiesIn(who, `/api/v2/unified_jobs/?type=${run.type}&id=${run.id}`);
        for (const [where, list] of [['its kind list', kindList], ['unified_jobs', unified], ['unified_jobs a row a page', unifiedByOne], ['unified_jobs of its type', unifiedOfType]] as const) {
          assert.deepEqual(list.get(run.url), capabilities, `${run.url} for ${name} in ${where}`);
        }
      }
    }
  });
});
