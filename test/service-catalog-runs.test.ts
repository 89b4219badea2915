import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject, newUser, newWorkflow, type User } from './helpers/factories.ts';
import { newCatalogItem, setSurvey, survey } from './helpers/catalog.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { startHttpPeer, type HttpPeer } from './helpers/notification-peers.ts';

const OK = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello {{ name }}"
`;
const FAIL = `- hosts: all
  gather_facts: false
  tasks:
    - name: fail
      fail: msg=boom
`;
const SLOW = `- hosts: all
  gather_facts: false
  tasks:
    - name: wait
      pause: seconds=60
`;
// Passes only when the node's run got the password answer in clear.
const PIN = `- hosts: all
  gather_facts: false
  tasks:
    - name: check the pin
      assert:
        that: pin == '1234'
`;

/**
 * A request follows its run to the end: successful, failed, canceled, for a job and for a workflow
 * job, with its item's "finished" notifications sent. Runs execute for real here.
 */
describe('service catalog: requests follow their runs', () => {
  let t: TestApp;
  let peer: HttpPeer;
  let org: number;
  let requester: User;
  const templates: Record<string, number> = {};
  const items: Record<string, any> = {};

  const submit = async (item: any, body: Record<string, unknown> = {}) => {
    const res = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, body, { as: requester });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'running', res.text);
    return res.body;
  };
  /** The request once it has left running, as its requester sees it. */
  const ended = (id: number) =>
    eventually(async () => {
      const body = (await t.get(`/api/v2/service_requests/${id}/`, { as: requester })).body;
      return body.status !== 'running' && body;
    }, 120_000, `request ${id} ended`);

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    org = (await newOrg(t)).id;
    requester = await newUser(t, { member: org });
    const project = (await newProject(t, org, { files: { 'ok.yml': OK, 'fail.yml': FAIL, 'slow.yml': SLOW, 'pin.yml': PIN } })).id;
    const inventory = (await newInventory(t, org, { hosts: ['h1'] })).id;
    for (const playbook of ['ok', 'fail', 'slow', 'pin']) {
      templates[playbook] = (await newJobTemplate(t, { project, inventory, playbook: `${playbook}.yml`, allow_simultaneous: true })).id;
    }
    await setSurvey(t, `/api/v2/job_templates/${templates.ok}/`, survey({ variable: 'name', type: 'text', required: true }));
    await setSurvey(t, `/api/v2/job_templates/${templates.pin}/`, survey({ variable: 'pin', type: 'password', required: true }));
    for (const playbook of ['ok', 'fail', 'slow']) items[playbook] = await newCatalogItem(t, org, { job_template: templates[playbook] });
    const workflow = await newWorkflow(t, org, { nodes: { check: { template: templates.pin }, greet: { template: templates.ok, extra: { name: 'from the node' } } }, edges: [['check', 'success', 'greet']] });
    items.workflow = await newCatalogItem(t, org, { workflow_job_template: workflow.id });
    const hook = (await t.post('/api/v2/notification_templates/', {
      name: 'finished hook', organization: org, notification_type: 'webhook', notification_configuration: { url: `${peer.base}/finished`, headers: {} },
    })).body;
    for (const item of Object.values(items)) {
      assert.equal((await t.post(`/api/v2/service_catalog_items/${item.id}/notification_templates_finished/`, { id: hook.id })).status, 204);
    }
  });
  after(async () => {
    await t?.close();
    await peer?.close();
  });

  it('successful with its job, the answers having reached the playbook; the finished notification says so', async () => {
    const request = await submit(items.ok, { extra_vars: { name: 'catalog' } });
    const done = await ended(request.id);
    assert.equal(done.status, 'successful');
    assert.equal(done.summary_fields.unified_job.status, 'successful');
    const run = (await t.get(`/api/v2/jobs/${done.unified_job}/`)).body;
    assert.deepEqual([run.launched_by.id, run.launch_type], [requester.id, 'manual']);
    const stdout = (await t.get(`/api/v2/jobs/${done.unified_job}/stdout/?format=txt`)).text;
    assert.match(stdout, /hello catalog/);
    // The requester holds no role on the template, yet follows his run; another member of the organization does not see it.
    const asRequester = await t.get(`/api/v2/jobs/${done.unified_job}/`, { as: requester });
    assert.equal(asRequester.status, 200, asRequester.text);
    assert.match((await t.get(`/api/v2/jobs/${done.unified_job}/stdout/?format=txt`, { as: requester })).text, /hello catalog/);
    assert.ok((await t.get(`/api/v2/unified_jobs/?id=${done.unified_job}`, { as: requester })).body.results.length === 1);
    const colleague = await newUser(t, { member: org });
    assert.equal((await t.get(`/api/v2/jobs/${done.unified_job}/`, { as: colleague })).status, 403);
    assert.equal((await t.get(`/api/v2/jobs/?id=${done.unified_job}`, { as: colleague })).body.count, 0);
    const delivery = await eventually(async () => peer.received.find((r) => JSON.parse(r.body).id === request.id), 30_000, 'the finished notification');
    const body = JSON.parse(delivery.body);
    assert.equal(body.status, 'successful');
    assert.equal(body.catalog_item.id, items.ok.id);
    assert.equal(body.requester, requester.username);
    assert.equal(body.path, `/api/v2/service_requests/${request.id}/`);
  });

  it('failed with its failed job', async () => {
    const done = await ended((await submit(items.fail)).id);
    assert.equal(done.status, 'failed');
    assert.equal(done.summary_fields.unified_job.status, 'failed');
  });

  it('canceled with its canceled job', async () => {
    const request = await submit(items.slow);
    await eventually(async () => (await t.get(`/api/v2/jobs/${request.unified_job}/`)).body.status === 'running', 120_000, 'the slow job running');
    assert.equal((await t.get(`/api/v2/service_requests/${request.id}/`)).body.status, 'running');
    assert.equal((await t.post(`/api/v2/jobs/${request.unified_job}/cancel/`)).status, 202);
    const done = await ended(request.id);
    assert.equal(done.status, 'canceled');
  });

  it("a workflow's request follows its workflow job; each node's run gets the node's answers", async () => {
    const request = await submit(items.workflow, { node_survey_data: { check: { pin: '1234' } } });
    const done = await ended(request.id);
    assert.equal(done.status, 'successful', JSON.stringify(done));
    assert.equal(done.summary_fields.unified_job.type, 'workflow_job');
    const workflowJob = await waitForRun(t, `/api/v2/workflow_jobs/${done.unified_job}/`);
    assert.equal(workflowJob.status, 'successful');
    const failing = await submit(items.workflow, { node_survey_data: { check: { pin: '0000' } } });
    assert.equal((await ended(failing.id)).status, 'failed', 'a wrong pin fails the node, and the workflow job with it');
  });
});
