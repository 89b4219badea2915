import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { startHttpPeer, type HttpPeer } from './helpers/notification-peers.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Waits for a notification to leave pending and answers it. */
export async function settled(t: TestApp, id: number): Promise<any> {
  return eventually(async () => {
    const res = await t.get(`/api/v2/notifications/${id}/`);
    return res.body.status !== 'pending' && res.body;
  }, 30_000, `notification ${id} sent`);
}

describe('notification templates', () => {
  let t: TestApp;
  let peer: HttpPeer;
  let orgId: number;

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    orgId = (await newOrg(t, { name: 'Notifying' })).id;
  });
  after(async () => {
    await t.close();
    await peer.close();
  });

  const allowLoopback = async (allowed: string[] = ['127.0.0.1']) =>
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: allowed })).status, 200);

  const webhook = (fields: Record<string, unknown> = {}, configuration: Record<string, unknown> = {}) =>
    t.post('/api/v2/notification_templates/', {
      name: `hook-${Math.random().toString(36).slice(2)}`,
      organization: orgId,
      notification_type: 'webhook',
      notification_configuration: { url: `${peer.base}/hook`, headers: { 'X-Custom': 'yes' }, username: 'hookuser', password: 'hook-secret-pw', ...configuration },
      ...fields,
    });

  it('creates a template: secrets encrypted at rest, read back as $encrypted$, hidden in the activity stream', async () => {
    const res = await webhook({ name: 'Alerts' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.notification_configuration.password, '$encrypted$');
    assert.equal(res.body.notification_configuration.username, 'hookuser');
    assert.equal(res.body.notification_configuration.http_method, 'POST');
    assert.equal(res.body.notification_configuration.disable_ssl_verification, false);
    assert.deepEqual(res.body.messages, { started: null, success: null, error: null, workflow_approval: null });
    assert.equal(res.body.related.test, `/api/v2/notification_templates/${res.body.id}/test/`);
    assert.equal(res.body.related.notifications, `/api/v2/notification_templates/${res.body.id}/notifications/`);
    assert.deepEqual(res.body.summary_fields.recent_notifications, []);
    const [stored] = await t.db.query<AnyRow>('SELECT notification_configuration FROM notification_templates WHERE id = $1', [res.body.id]);
    assert.match(stored.notification_configuration.password, /^\$encrypted\$AESGCM/);
    const detail = await t.get(`/api/v2/notification_templates/${res.body.id}/`);
    assert.doesNotMatch(detail.text, /hook-secret-pw/);
    const activity = await t.get(`/api/v2/notification_templates/${res.body.id}/activity_stream/`);
    assert.equal(activity.status, 200);
    assert.doesNotMatch(activity.text, /hook-secret-pw/);
    assert.equal((await t.get('/api/v2/notification_templates/?name=Alerts')).body.count, 1);
    assert.equal((await t.get(`/api/v2/notification_templates/Alerts++Notifying/`)).body.id, res.body.id);
  });

  it('OPTIONS describes the fields and default messages of each kind, as AWX', async () => {
    const post = (await t.request('OPTIONS', '/api/v2/notification_templates/')).body.actions.POST;
    assert.deepEqual(post.notification_configuration.slack.token, { label: 'Token', type: 'password' });
    assert.deepEqual(post.notification_configuration.email.timeout, { label: 'Timeout', type: 'int', default: 30 });
    assert.deepEqual(post.notification_type.choices.map(([value]: string[]) => value).sort(),
      ['email', 'grafana', 'irc', 'mattermost', 'pagerduty', 'rocketchat', 'slack', 'twilio', 'webhook']);
    assert.equal(post.messages.webhook.success.body, '{{ job_metadata }}');
    assert.equal(post.messages.slack.started.message, "{{ job_friendly_name }} #{{ job.id }} '{{ job.name }}' {{ job.status }}: {{ url }}");
  });

  it('validates the configuration of each kind with clear 400s, storing nothing', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ notification_type: 'email', notification_configuration: { host: 'mail.example.com' } }, /Missing required fields for Notification Configuration: port, username, password/],
      [{ notification_type: 'slack', notification_configuration: { token: 'x', channels: '#general' } }, /'channels' incorrect type, expected list/],
      [{ notification_type: 'slack', notification_configuration: { token: 'x', channels: [] } }, /No values specified for field 'channels'/],
      [{ notification_type: 'webhook', notification_configuration: { url: 'http://h.example/', headers: {}, http_method: 'GET' } }, /HTTP method must be either 'POST' or 'PUT'/],
      [{ notification_type: 'webhook', notification_configuration: { url: 'ftp://h.example/', headers: {} } }, /must be an http or https URL/],
      [{ notification_type: 'irc', notification_configuration: { server: 'irc', port: '6667', nickname: 'n', password: '', use_ssl: false, targets: ['#a'] } }, /'port' incorrect type, expected int/],
      [{ notification_type: 'irc', notification_configuration: { server: 'irc', port: 6667, nickname: 'n', password: '', use_ssl: false, targets: ['#a\r\nQUIT'] } }, /without line breaks/],
      [{ notification_type: 'twilio', notification_configuration: { account_sid: 'a', account_token: '$encrypted$', from_number: '1', to_numbers: ['2'] } }, /reserved keyword/],
      [{ notification_type: 'mattermost', notification_configuration: { mattermost_url: 'http://m.example/', mattermost_no_verify_ssl: false, bogus: 1 } }, /'bogus' is not a field of Mattermost/],
    ];
    for (const [body, message] of cases) {
      const res = await t.post('/api/v2/notification_templates/', { name: 'bad', organization: orgId, ...body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(JSON.stringify(res.body.notification_configuration), message);
    }
    assert.equal((await t.post('/api/v2/notification_templates/', { name: 'bad', organization: orgId, notification_type: 'carrier-pigeon' })).status, 400);
    assert.equal((await t.db.query<AnyRow>("SELECT 1 FROM notification_templates WHERE name = 'bad'")).length, 0);
  });

  it('validates custom messages: structure, newlines in messages and template syntax', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ finished: { message: 'x' } }, /Event 'finished' invalid/],
      [{ started: { message: 'a\nb' } }, /cannot contain newlines/],
      [{ started: { message: '{{ job.name ' } }, /Unable to render message/],
      [{ error: { body: '{% for %}' } }, /Unable to render message/],
      [{ started: { subject: 'x' } }, /Message type 'subject' invalid/],
      [{ workflow_approval: { later: { message: 'x' } } }, /Workflow Approval event 'later' invalid/],
      [{ success: 'text' }, /Expected dict for event 'success'/],
    ];
    for (const [messages, problem] of cases) {
      const res = await webhook({ messages });
      assert.equal(res.status, 400, res.text);
      assert.match(JSON.stringify(res.body.messages), problem);
    }
    const ok = await webhook({ messages: { started: { message: 'Go {{ job.name }}', body: '{"id": {{ job.id }}}' }, workflow_approval: { denied: { message: 'no' } } } });
    assert.equal(ok.status, 201, ok.text);
    // An update naming one event keeps the others (AWX merges messages on save).
    const patched = await t.patch(`/api/v2/notification_templates/${ok.body.id}/`, { messages: { error: { message: 'Failed {{ job.id }}' } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.messages.started.message, 'Go {{ job.name }}');
    assert.equal(patched.body.messages.error.message, 'Failed {{ job.id }}');
    assert.equal(patched.body.messages.workflow_approval.denied.message, 'no');
  });

  it('keeps a secret sent back as $encrypted$, replaces it when given, and needs a new configuration to change kind', async () => {
    const created = (await webhook()).body;
    const same = await t.patch(`/api/v2/notification_templates/${created.id}/`, { notification_configuration: { ...created.notification_configuration, url: `${peer.base}/moved` } });
    assert.equal(same.status, 200, same.text);
    const [kept] = await t.db.query<AnyRow>('SELECT notification_configuration AS c FROM notification_templates WHERE id = $1', [created.id]);
    const [before] = [kept.c.password];
    assert.match(before, /^\$encrypted\$AESGCM/);
    const changed = await t.patch(`/api/v2/notification_templates/${created.id}/`, { notification_configuration: { ...created.notification_configuration, password: 'new-secret' } });
    assert.equal(changed.status, 200);
    const [after] = await t.db.query<AnyRow>('SELECT notification_configuration AS c FROM notification_templates WHERE id = $1', [created.id]);
    assert.notEqual(after.c.password, before);
    const kind = await t.patch(`/api/v2/notification_templates/${created.id}/`, { notification_type: 'slack' });
    assert.equal(kind.status, 400);
    assert.match(kind.text, /notification_configuration is required when notification_type changes/);
  });

  it('test/ sends in the background and answers 202 with the notification; the loopback peer is refused until allowed', async () => {
    const nt = (await webhook()).body;
    const refused = await t.post(`/api/v2/notification_templates/${nt.id}/test/`, {});
    assert.equal(refused.status, 202, refused.text);
    assert.equal(typeof refused.body.notification, 'number');
    assert.equal(refused.headers.location, `/api/v2/notifications/${refused.body.notification}/`);
    const failed = await settled(t, refused.body.notification);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /Refused/);
    assert.equal(peer.received.length, 0);

    await allowLoopback();
    const sent = await settled(t, (await t.post(`/api/v2/notification_templates/${nt.id}/test/`, {})).body.notification);
    assert.equal(sent.status, 'successful', sent.error);
    assert.equal(sent.notifications_sent, 1);
    assert.equal(sent.notification_type, 'webhook');
    assert.equal(sent.recipients, `${peer.base}/hook`);
    assert.match(sent.subject, new RegExp(`^Notification Test ${nt.id}`));
    const request = peer.received.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hook');
    assert.equal(request.headers['x-custom'], 'yes');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers.authorization, `Basic ${Buffer.from('hookuser:hook-secret-pw').toString('base64')}`);
    assert.match(JSON.parse(request.body).body, new RegExp(`^Test Notification ${nt.id}`));
    // The template's notifications and its recent ones list it; no record holds the secret.
    const list = await t.get(`/api/v2/notification_templates/${nt.id}/notifications/`);
    assert.equal(list.body.count, 2);
    assert.equal((await t.get(`/api/v2/notification_templates/${nt.id}/`)).body.summary_fields.recent_notifications.length, 2);
    assert.doesNotMatch((await t.get('/api/v2/notifications/')).text, /hook-secret-pw/);
    const rows = await t.db.query<AnyRow>('SELECT * FROM notifications');
    assert.doesNotMatch(JSON.stringify(rows), /hook-secret-pw/);
  });

  it('a PUT webhook, a 500 answer and a refused connection: each recorded', async () => {
    await allowLoopback();
    const put = (await webhook({}, { http_method: 'PUT', url: `${peer.base}/put` })).body;
    assert.equal((await settled(t, (await t.post(`/api/v2/notification_templates/${put.id}/test/`, {})).body.notification)).status, 'successful');
    assert.equal(peer.received.at(-1)!.method, 'PUT');

    peer.answers.set('/broken', { status: 500, body: 'no' });
    const broken = (await webhook({}, { url: `${peer.base}/broken` })).body;
    const answer500 = await settled(t, (await t.post(`/api/v2/notification_templates/${broken.id}/test/`, {})).body.notification);
    assert.equal(answer500.status, 'failed');
    assert.equal(answer500.error, 'Error sending notification webhook: 500');

    const closed = await startHttpPeer();
    await closed.close();
    const nowhere = (await webhook({}, { url: `${closed.base}/gone` })).body;
    const refused = await settled(t, (await t.post(`/api/v2/notification_templates/${nowhere.id}/test/`, {})).body.notification);
    assert.equal(refused.status, 'failed');
    assert.match(refused.error, /ECONNREFUSED/);
  });

  it('the metadata address is refused even with loopback allowed', async () => {
    await allowLoopback();
    const metadata = (await webhook({}, { url: 'http://169.254.169.254/latest/meta-data/' })).body;
    const sent = await settled(t, (await t.post(`/api/v2/notification_templates/${metadata.id}/test/`, {})).body.notification);
    assert.equal(sent.status, 'failed');
    assert.match(sent.error, /Refused.*169\.254\.169\.254/);
  });

  it('copy/ makes a copy that keeps the secrets', async () => {
    await allowLoopback();
    const original = (await webhook({}, { url: `${peer.base}/copied`, password: 'copied-secret' })).body;
    const copy = await t.post(`/api/v2/notification_templates/${original.id}/copy/`, { name: 'Copied hook' });
    assert.equal(copy.status, 201, copy.text);
    assert.equal(copy.body.notification_configuration.password, '$encrypted$');
    assert.equal((await t.get(`/api/v2/notification_templates/${original.id}/copy/`)).body.can_copy, true);
    const sent = await settled(t, (await t.post(`/api/v2/notification_templates/${copy.body.id}/test/`, {})).body.notification);
    assert.equal(sent.status, 'successful', sent.error);
    assert.equal(peer.received.at(-1)!.headers.authorization, `Basic ${Buffer.from('hookuser:copied-secret').toString('base64')}`);
  });

  it('workflow approval events notify the templates attached for approvals, with the approval in the context', async () => {
    await allowLoopback();
    const custom = (await webhook({ messages: { workflow_approval: { denied: { message: 'No to {{ approval_node_name }}', body: '{"node": "{{ approval_node_name }}"}' } } } }, { url: `${peer.base}/approval-custom` })).body;
    const plain = (await webhook({}, { url: `${peer.base}/approval-default` })).body;
    for (const nt of [custom, plain]) assert.equal((await t.post(`/api/v2/organizations/${orgId}/notification_templates_approvals/`, { id: nt.id })).status, 204);
    const { queueApprovalNotifications } = await import('../src/resources/notification-templates/queue.ts');
    const made = await t.db.transaction((tx) =>
      queueApprovalNotifications(tx, { workflowJobTemplateId: null, organizationId: orgId, workflowJobId: null }, 'denied', { approval_node_name: 'Gate', workflow_url: 'https://drover.example/#/jobs/workflow/9' }),
    );
    assert.equal(made, 2);
    const ids = (await t.db.query<AnyRow>(`SELECT id FROM notifications WHERE event = 'workflow_approval.denied' ORDER BY notification_template_id`)).map((r) => r.id);
    const [first, second] = [await settled(t, ids[0]), await settled(t, ids[1])];
    assert.equal(first.subject, 'No to Gate');
    assert.deepEqual(first.body, { node: 'Gate' });
    assert.equal(second.subject, 'The approval node "Gate" was denied. https://drover.example/#/jobs/workflow/9');
    assert.deepEqual(JSON.parse(peer.received.filter((r) => r.url === '/approval-default').at(-1)!.body), { body: second.subject });
  });

  it('a message that runs away in the sandbox is stopped, and the notification says why', async () => {
    await allowLoopback();
    const runaway = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}';
    const nt = (await webhook({ messages: { workflow_approval: { running: { message: runaway } } } }, { url: `${peer.base}/runaway` })).body;
    const { queueTemplateNotification } = await import('../src/resources/notification-templates/queue.ts');
    const id = await t.db.transaction((tx) => queueTemplateNotification(tx, nt.id, 'workflow_approval.running', { extraContext: { approval_node_name: 'Gate', workflow_url: '' } }));
    const sent = await settled(t, id);
    assert.equal(sent.status, 'successful', sent.error);
    assert.match(sent.subject, /^Unable to render the message template: Template took longer than \d+ ms and was stopped\.$/);
  });

  it('pending notifications survive a restart: the next sender sends them', async () => {
    await allowLoopback();
    const nt = (await webhook({}, { url: `${peer.base}/later` })).body;
    const [row] = await t.db.query<AnyRow>(
      "INSERT INTO notifications (notification_template_id, notification_type, event) VALUES ($1, 'webhook', 'test') RETURNING id",
      [nt.id],
    );
    // No NOTIFY was sent: only a sender starting (or its sweep) finds it.
    const { startNotificationSender } = await import('../src/notifications/sender.ts');
    const sender = await startNotificationSender(t.services);
    try {
      const sent = await settled(t, row.id);
      assert.equal(sent.status, 'successful', sent.error);
      assert.ok(peer.received.some((r) => r.url === '/later'));
    } finally {
      await sender.stop();
    }
  });
});
