// Notifications of workflows: started, success and error of workflow jobs; running, approved, denied and timed out of approvals; who may attach.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { startHttpPeer, type HttpPeer } from './helpers/notification-peers.ts';
import { answer, finished, launchWorkflow, makeWorkflow, nodeRun } from './helpers/workflows.ts';

describe('notifications of workflows', () => {
  let t: TestApp;
  let peer: HttpPeer;
  let org: number;
  let plain: User;
  let otherAdmin: User;

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    org = (await newOrg(t, { name: 'Notified flows' })).id;
    const other = await newOrg(t, { name: 'Not theirs' });
    plain = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other.id });
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
  });
  after(async () => {
    await t.close();
    await peer.close();
  });

  const hook = async (path: string) => {
    const res = await t.post('/api/v2/notification_templates/', {
      name: `hook${path.replace(/\//g, '-')}`, organization: org, notification_type: 'webhook', notification_configuration: { url: `${peer.base}${path}`, headers: {} },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const attach = async (url: string, id: number) => assert.equal((await t.post(url, { id })).status, 204, url);
  const received = (path: string) => peer.received.filter((r) => r.url === path).map((r) => JSON.parse(r.body));
  const receivedCount = async (path: string, count: number): Promise<any[]> =>
    eventually(async () => (received(path).length >= count ? received(path) : null), 30_000, `${count} notifications at ${path}`) as Promise<any[]>;
  // Notifications are sent side by side: they may arrive in any order.
  /** A workflow of one approval node with a hook on each of its lists, under paths starting with `prefix`. */
  const notifiedWorkflow = async (prefix: string, approval: { timeout?: number } = {}) => {
    const wf = await makeWorkflow(t, org, `${prefix} flow`, { gate: { approval } }, []);
    for (const event of ['started', 'success', 'error', 'approvals']) {
      await attach(`/api/v2/workflow_job_templates/${wf.id}/notification_templates_${event}/`, await hook(`/${prefix}/${event}`));
    }
    return wf;
  };

  it('a workflow job sends started and success, its approval running and approved, and the organization hears only the workflow', async () => {
    const wf = await notifiedWorkflow('ok');
    const orgSuccess = await hook('/ok/org-success');
    await attach(`/api/v2/organizations/${org}/notification_templates_success/`, orgSuccess);
    const listed = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/notification_templates_approvals/`)).body;
    assert.equal(listed.count, 1);
    const related = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/`)).body.related;
    for (const event of ['started', 'success', 'error', 'approvals']) {
      assert.equal(related[`notification_templates_${event}`], `/api/v2/workflow_job_templates/${wf.id}/notification_templates_${event}/`);
    }

    const wj = await launchWorkflow(t, wf.id);
    const [started] = await receivedCount('/ok/started', 1);
    assert.equal(started.id, wj);
    assert.equal(started.status, 'running');
    assert.equal(started.name, 'ok flow');
    assert.match(started.url, new RegExp(`/#/jobs/workflow/${wj}$`));
    const [running] = await receivedCount('/ok/approvals', 1);
    assert.match(running.body, new RegExp(`^The approval node "ok flow gate" needs review\\. This node can be viewed at: .*/#/jobs/workflow/${wj}$`));

    await answer(t, wj, 'gate', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
    const [success] = await receivedCount('/ok/success', 1);
    assert.equal(success.id, wj);
    assert.equal(success.status, 'successful');
    const approvals = await receivedCount('/ok/approvals', 2);
    assert.ok(approvals.some((a) => new RegExp(`^The approval node "ok flow gate" was approved\\. .*/#/jobs/workflow/${wj}$`).test(a.body)), JSON.stringify(approvals));
    // The approval's end is no run event: the organization's success list hears the workflow job alone.
    const [fromOrg] = await receivedCount('/ok/org-success', 1);
    assert.equal(fromOrg.id, wj);
    // Whatever the passes and the sender would still do is done: nothing more was sent.
    await t.settle();
    assert.equal(received('/ok/org-success').length, 1);
    assert.equal(received('/ok/error').length, 0);
    assert.equal(received('/ok/approvals').length, 2);
    const notes = (await t.get(`/api/v2/workflow_jobs/${wj}/notifications/`)).body;
    assert.ok(notes.count >= 3, JSON.stringify(notes));
  });

  it('a denied approval sends denied, and the failed workflow job error', async () => {
    const wf = await notifiedWorkflow('deny');
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'gate', 'deny');
    assert.equal((await finished(t, wj)).status, 'failed');
    const [error] = await receivedCount('/deny/error', 1);
    assert.equal(error.id, wj);
    assert.equal(error.status, 'failed');
    const approvals = await receivedCount('/deny/approvals', 2);
    assert.deepEqual(approvals.map((a) => a.body.split('.')[0]).sort(), ['The approval node "deny flow gate" needs review', 'The approval node "deny flow gate" was denied']);
    assert.equal(received('/deny/success').length, 0);
  });

  it('an approval nobody answers in time sends timed out', async () => {
    const wf = await notifiedWorkflow('late', { timeout: 1 });
    const wj = await launchWorkflow(t, wf.id);
    await nodeRun(t, wj, 'gate');
    const approvals = await receivedCount('/late/approvals', 2);
    assert.deepEqual(approvals.map((a) => a.body.split('.')[0]).sort(), ['The approval node "late flow gate" has timed out', 'The approval node "late flow gate" needs review']);
    await receivedCount('/late/error', 1);
  });

  it('attaching to a workflow\'s lists is refused to a plain user and to another organization\'s admin, and changes nothing', async () => {
    const wf = await makeWorkflow(t, org, 'guarded flow', { gate: {} }, []);
    const nt = await hook('/guarded');
    for (const event of ['started', 'success', 'error', 'approvals']) {
      const list = `/api/v2/workflow_job_templates/${wf.id}/notification_templates_${event}/`;
      for (const who of [plain, otherAdmin]) {
        assert.equal((await t.post(list, { id: nt }, { as: who })).status, 403, `${who.username} ${event}`);
        assert.equal((await t.get(list, { as: who })).status, 403);
      }
      assert.equal((await t.get(list)).body.count, 0);
    }
    await attach(`/api/v2/workflow_job_templates/${wf.id}/notification_templates_approvals/`, nt);
    for (const who of [plain, otherAdmin]) {
      const detach = await t.post(`/api/v2/workflow_job_templates/${wf.id}/notification_templates_approvals/`, { id: nt, disassociate: true }, { as: who });
      assert.equal(detach.status, 403);
    }
    assert.equal((await t.get(`/api/v2/workflow_job_templates/${wf.id}/notification_templates_approvals/`)).body.count, 1);
  });
});
