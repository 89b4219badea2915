import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newHost, newInventory, newJobTemplate, newOrg, newProject, type TestApp } from './helpers/app.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { startHttpPeer, startSmtpPeer, type HttpPeer, type SmtpPeer } from './helpers/notification-peers.ts';

const OK = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg=hello
`;
const FAIL = `- hosts: all
  gather_facts: false
  tasks:
    - name: boom
      fail: msg=boom
`;

describe('notifications of runs', () => {
  let t: TestApp;
  let peer: HttpPeer;
  let smtp: SmtpPeer;
  let orgId: number;
  let projectId: number;
  let inventoryId: number;

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    smtp = await startSmtpPeer();
    peer.answers.set('/broken', { status: 500, body: 'down' });
    orgId = (await newOrg(t, { name: 'Runs' })).id;
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    projectId = (await newProject(t, orgId, { name: 'Plays', files: { 'ok.yml': OK, 'fail.yml': FAIL, 'hosts.ini': 'from-source\n' } })).id;
    inventoryId = (await newInventory(t, orgId, { name: 'Local' })).id;
    await newHost(t, inventoryId, { name: 'h1' });
  });
  after(async () => {
    await t.close();
    await peer.close();
    await smtp.close();
  });

  const hook = async (path: string, messages?: unknown) => {
    const res = await t.post('/api/v2/notification_templates/', {
      name: `hook${path.replace(/\//g, '-')}`,
      organization: orgId,
      notification_type: 'webhook',
      notification_configuration: { url: `${peer.base}${path}`, headers: {} },
      ...(messages !== undefined && { messages }),
    });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const attach = async (url: string, id: number) => assert.equal((await t.post(url, { id })).status, 204, url);
  const template = async (playbook: string) =>
    newJobTemplate(t, { name: `jt-${playbook}-${Math.random()}`, project: projectId, inventory: inventoryId, playbook });
  /** The run's notifications once `count` of them (of the given templates, else all) are no longer pending. */
  const settledOf = (runUrl: string, count: number, templates?: number[]) =>
    eventually(async () => {
      const list = (await t.get(`${runUrl}notifications/`)).body.results.filter((n: any) => !templates || templates.includes(n.notification_template));
      return list.length === count && list.every((n: any) => n.status !== 'pending') && list;
    }, 30_000, `${count} notifications of ${runUrl} sent`);
  const received = (path: string) => peer.received.filter((r) => r.url === path);

  it('a job sends started and success notifications of its template, project and organization, with AWX\'s job context', async () => {
    const jt = await template('ok.yml');
    const started = await hook('/started', { started: { message: 'started {{ job.name }} {{ job.status }}', body: '{"job": {{ job.id }}, "status": "{{ job.status }}", "friendly": "{{ job_friendly_name }}"}' } });
    const success = await hook('/success');
    const error = await hook('/error');
    const fromProject = await hook('/project-success');
    const fromOrg = await hook('/org-success');
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_started/`, started.id);
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_success/`, success.id);
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_error/`, error.id);
    await attach(`/api/v2/projects/${projectId}/notification_templates_success/`, fromProject.id);
    await attach(`/api/v2/organizations/${orgId}/notification_templates_success/`, fromOrg.id);
    const mail = (await t.post('/api/v2/notification_templates/', {
      name: 'mail', organization: orgId, notification_type: 'email', notification_configuration: {
        host: '127.0.0.1', port: smtp.port, username: '', password: '', use_tls: false, use_ssl: false, sender: 'drover@example.com', recipients: ['ops@example.com'],
      },
    })).body;
    const grafana = (await t.post('/api/v2/notification_templates/', {
      name: 'grafana', organization: orgId, notification_type: 'grafana', notification_configuration: { grafana_url: `${peer.base}/grafana`, grafana_key: 'k' },
    })).body;
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_success/`, mail.id);
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_success/`, grafana.id);
    const listed = (await t.get(`/api/v2/job_templates/${jt.id}/notification_templates_started/`)).body;
    assert.deepEqual(listed.results.map((n: any) => n.id), [started.id]);
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.related.notification_templates_success, `/api/v2/job_templates/${jt.id}/notification_templates_success/`);

    const launched = (await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {})).body;
    const job = await waitForRun(t, `/api/v2/jobs/${launched.id}/`, 120_000);
    assert.equal(job.status, 'successful');
    const notes = await settledOf(`/api/v2/jobs/${job.id}/`, 6);
    assert.ok(notes.every((n: any) => n.status === 'successful'), JSON.stringify(notes));
    assert.equal(received('/error').length, 0);

    const startedBody = JSON.parse(received('/started')[0].body);
    assert.deepEqual(startedBody, { job: job.id, status: 'running', friendly: 'Job' });
    const startedNote = notes.find((n: any) => n.notification_template === started.id);
    assert.equal(startedNote.subject, `started ${jt.name} running`);
    // AWX's default webhook body is the run's metadata.
    for (const path of ['/success', '/project-success', '/org-success']) {
      const body = JSON.parse(received(path)[0].body);
      assert.equal(body.id, job.id);
      assert.equal(body.status, 'successful');
      assert.equal(body.name, jt.name);
      assert.equal(body.playbook, 'ok.yml');
      assert.equal(body.created_by, 'admin');
      assert.deepEqual(Object.keys(body.hosts), ['h1']);
      assert.match(body.url, new RegExp(`/#/jobs/playbook/${job.id}$`));
    }
    const successNote = notes.find((n: any) => n.notification_template === success.id);
    assert.equal(successNote.subject, `Job #${job.id} '${jt.name}' successful: ${JSON.parse(received('/success')[0].body).url}`);
    assert.equal(successNote.body.id, job.id);
    // The email: AWX's default subject, and a body of the status line and the run's metadata.
    const [message] = smtp.mails;
    assert.deepEqual(message.to, ['ops@example.com']);
    assert.match(message.data, new RegExp(`Subject: Job #${job.id} '${jt.name.replace(/\./g, '\\.')}' successful`));
    assert.match(message.data, new RegExp(`Job #${job.id} had status successful, view details at `));
    assert.match(message.data, /"playbook": "ok\.yml"/);
    // Grafana: an annotation from the run's start to its end.
    const annotation = JSON.parse(received('/grafana/api/annotations')[0].body);
    assert.equal(annotation.time, Date.parse(job.started));
    assert.equal(annotation.timeEnd, Date.parse(job.finished));
    assert.equal(annotation.isRegion, true);
  });

  it('a failing job sends its error notification; a notification that fails leaves the run as it was', async () => {
    const jt = await template('fail.yml');
    const error = await hook('/job-error', { error: { message: 'failed {{ job.id }} on {{ job.host_status_counts.failures }} host(s)' } });
    const broken = await hook('/broken');
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_error/`, error.id);
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_error/`, broken.id);
    const launched = (await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {})).body;
    const job = await waitForRun(t, `/api/v2/jobs/${launched.id}/`, 120_000);
    assert.equal(job.status, 'failed');
    const notes = await settledOf(`/api/v2/jobs/${job.id}/`, 2, [error.id, broken.id]);
    const sent = notes.find((n: any) => n.notification_template === error.id);
    assert.equal(sent.status, 'successful');
    assert.equal(sent.subject, `failed ${job.id} on 1 host(s)`);
    const failed = notes.find((n: any) => n.notification_template === broken.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, 'Error sending notification webhook: 500');
    assert.equal((await t.get(`/api/v2/jobs/${job.id}/`)).body.status, 'failed');

    // A successful run whose success notification fails stays successful.
    const fine = await template('ok.yml');
    await attach(`/api/v2/job_templates/${fine.id}/notification_templates_success/`, broken.id);
    const ok = await waitForRun(t, `/api/v2/jobs/${(await t.post(`/api/v2/job_templates/${fine.id}/launch/`, {})).body.id}/`, 120_000);
    const [note] = await settledOf(`/api/v2/jobs/${ok.id}/`, 1, [broken.id]);
    assert.equal(note.status, 'failed');
    assert.equal((await t.get(`/api/v2/jobs/${ok.id}/`)).body.status, 'successful');
  });

  it('a project update sends the project\'s notifications; detached templates send nothing', async () => {
    const started = await hook('/update-started');
    const success = await hook('/update-success');
    await attach(`/api/v2/projects/${projectId}/notification_templates_started/`, started.id);
    await attach(`/api/v2/projects/${projectId}/notification_templates_success/`, success.id);
    const update = await waitForRun(t, (await t.post(`/api/v2/projects/${projectId}/update/`)).body.url, 120_000);
    assert.equal(update.status, 'successful');
    // The organization's success template of the first test applies to its project updates too.
    const notes = await settledOf(`/api/v2/project_updates/${update.id}/`, 2, [started.id, success.id]);
    assert.deepEqual(notes.map((n: any) => n.status), ['successful', 'successful']);
    const body = JSON.parse(received('/update-success')[0].body);
    assert.equal(body.id, update.id);
    assert.match(body.url, new RegExp(`/#/jobs/project/${update.id}$`));
    const detach = await t.post(`/api/v2/projects/${projectId}/notification_templates_success/`, { id: success.id, disassociate: true });
    assert.equal(detach.status, 204);
    assert.equal((await t.get(`/api/v2/projects/${projectId}/notification_templates_success/`)).body.results.filter((n: any) => n.id === success.id).length, 0);
    const before = received('/update-success').length;
    const second = await waitForRun(t, (await t.post(`/api/v2/projects/${projectId}/update/`)).body.url, 120_000);
    await settledOf(`/api/v2/project_updates/${second.id}/`, 1, [started.id]);
    assert.equal(received('/update-success').length, before);
  });

  it('an inventory update sends the inventory source\'s notifications, with its kind in the context', async () => {
    const source = (await t.post('/api/v2/inventory_sources/', { name: 'src', inventory: inventoryId, source: 'scm', source_project: projectId, source_path: 'hosts.ini' })).body;
    const success = await hook('/source-success', { success: { message: '{{ job_friendly_name }} {{ job.id }} {{ job.status }}' } });
    await attach(`/api/v2/inventory_sources/${source.id}/notification_templates_success/`, success.id);
    const update = await waitForRun(t, (await t.post(`/api/v2/inventory_sources/${source.id}/update/`)).body.url, 120_000);
    assert.equal(update.status, 'successful');
    const [note] = await settledOf(`/api/v2/inventory_updates/${update.id}/`, 1, [success.id]);
    assert.equal(note.status, 'successful', note.error);
    assert.equal(note.subject, `Inventory Update ${update.id} successful`);
    assert.match(JSON.parse(received('/source-success')[0].body).url, new RegExp(`/#/jobs/inventory/${update.id}$`));
  });

  it('attachments go with a deleted template; notifications of a deleted template go with it', async () => {
    const jt = await template('ok.yml');
    const nt = await hook('/gone');
    await attach(`/api/v2/job_templates/${jt.id}/notification_templates_success/`, nt.id);
    assert.equal((await t.delete(`/api/v2/job_templates/${jt.id}/`)).status, 204);
    assert.equal((await t.db.query('SELECT 1 FROM unified_job_template_notification_templates WHERE unified_job_template_id = $1', [jt.id])).length, 0);
    await t.post(`/api/v2/notification_templates/${nt.id}/test/`, {});
    assert.equal((await t.delete(`/api/v2/notification_templates/${nt.id}/`)).status, 204);
    assert.equal((await t.db.query('SELECT 1 FROM notifications WHERE notification_template_id = $1', [nt.id])).length, 0);
  });
});
