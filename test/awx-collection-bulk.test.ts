import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject, newUser, type User } from './helpers/factories.ts';
import { runCollectionPlay } from './helpers/awx-collection.ts';

const task = (name: string, module: string, args: object) => ({ name, [`awx.awx.${module}`]: args });

/**
 * The awx.awx collection's bulk modules against Drover: bulk_host_create and bulk_job_launch (with
 * its wait). The collection Debian ships has no bulk_host_delete module; test/bulk.test.ts covers
 * that endpoint through the API.
 */
describe('the awx.awx collection and the bulk API', () => {
  let t: TestApp;
  let host: string;
  let template: number;
  let member: User;

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    host = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const org = (await newOrg(t, { name: 'Bulk Org' })).id;
    const inventory = (await newInventory(t, org, { name: 'Bulk Inventory', hosts: ['localhost'] })).id;
    const project = (await newProject(t, org, { name: 'Bulk Project' })).id;
    template = (await newJobTemplate(t, { name: 'Bulk JT', project, inventory, ask_limit_on_launch: true, allow_simultaneous: true })).id;
    member = await newUser(t, { member: org });
  });
  after(async () => {
    await t?.close();
  });

  it('bulk_host_create creates the hosts, variables given as a mapping; a repeated name fails the task and creates nothing', async () => {
    const run = await runCollectionPlay(host, ADMIN, [
      task('hosts', 'bulk_host_create', { inventory: 'Bulk Inventory', hosts: [{ name: 'c1', variables: { port: 22 } }, { name: 'c2', description: 'second', enabled: false }] }),
    ]);
    assert.deepEqual(run.failures, []);
    assert.equal(run.tasks[0].changed, true);
    const c1 = (await t.get('/api/v2/hosts/?name=c1')).body.results[0];
    assert.deepEqual(JSON.parse(c1.variables), { port: 22 });
    assert.equal((await t.get('/api/v2/hosts/?name=c2')).body.results[0].enabled, false);

    const count = (await t.get('/api/v2/hosts/')).body.count;
    const again = await runCollectionPlay(host, ADMIN, [task('again', 'bulk_host_create', { inventory: 'Bulk Inventory', hosts: [{ name: 'c3' }, { name: 'c1' }] })]);
    assert.equal(again.failures.length, 1);
    assert.match(JSON.stringify(again.tasks[0].result), /Duplicates found/);
    assert.equal((await t.get('/api/v2/hosts/')).body.count, count);
  });

  it('bulk_job_launch launches the jobs with their prompts and waits for the bulk job; a user without execute fails', async () => {
    const run = await runCollectionPlay(host, ADMIN, [
      task('launch', 'bulk_job_launch', { name: 'From the collection', jobs: [{ unified_job_template: template, limit: 'localhost' }, { unified_job_template: template }], wait: true }),
    ]);
    assert.deepEqual(run.failures, []);
    const result = run.tasks[0].result as { id: number; status: string };
    const job = (await t.get(`/api/v2/workflow_jobs/${result.id}/`)).body;
    assert.equal(job.is_bulk_job, true);
    assert.equal(job.name, 'From the collection');
    assert.equal(job.status, 'successful');
    const nodes = (await t.get(`/api/v2/workflow_jobs/${result.id}/workflow_nodes/`)).body.results;
    assert.equal(nodes.length, 2);

    const refused = await runCollectionPlay(host, member, [task('refused', 'bulk_job_launch', { jobs: [{ unified_job_template: template }] })]);
    assert.equal(refused.failures.length, 1);
    assert.match(JSON.stringify(refused.tasks[0].result), /not found or you don't have permissions/);
  });
});
