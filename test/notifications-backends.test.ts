import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { selfSignedCert, startHttpPeer, startIrcPeer, startSmtpPeer, type HttpPeer } from './helpers/notification-peers.ts';

describe('notification backends against real peers on 127.0.0.1', () => {
  let t: TestApp;
  let peer: HttpPeer;
  let orgId: number;
  let cert: { key: string; cert: string };

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    cert = await selfSignedCert();
    orgId = (await newOrg(t, { name: 'Backends' })).id;
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1', 'localhost'] })).status, 200);
  });
  after(async () => {
    await t.close();
    await peer.close();
  });

  /** Creates a template of `type`, sends its test, and answers the notification once settled. */
  const sendTest = async (type: string, configuration: Record<string, unknown>) => {
    const nt = await t.post('/api/v2/notification_templates/', { name: `${type}-${Math.random()}`, organization: orgId, notification_type: type, notification_configuration: configuration });
    assert.equal(nt.status, 201, nt.text);
    const started = await t.post(`/api/v2/notification_templates/${nt.body.id}/test/`, {});
    assert.equal(started.status, 202, started.text);
    const notification = await eventually(async () => {
      const res = await t.get(`/api/v2/notifications/${started.body.notification}/`);
      return res.body.status !== 'pending' && res.body;
    }, 30_000, `${type} test sent`);
    return { template: nt.body, notification };
  };
  const lastTo = (path: string) => peer.received.filter((r) => r.url === path).at(-1)!;

  const mail = (port: number, extra: Record<string, unknown> = {}) => ({
    host: 'localhost', port, username: '', password: '', use_tls: false, use_ssl: false, sender: 'drover@example.com', recipients: ['ops@example.com', 'dev@example.com'], timeout: 5, ...extra,
  });

  it('email over plain SMTP: subject, body, sender and every recipient', async () => {
    const smtp = await startSmtpPeer();
    try {
      const { template, notification } = await sendTest('email', mail(smtp.port));
      assert.equal(notification.status, 'successful', notification.error);
      assert.equal(notification.recipients, "['ops@example.com', 'dev@example.com']");
      assert.equal(smtp.mails.length, 1);
      const [received] = smtp.mails;
      assert.equal(received.from, 'drover@example.com');
      assert.deepEqual(received.to, ['ops@example.com', 'dev@example.com']);
      assert.equal(received.secure, false);
      assert.match(received.data, new RegExp(`Subject: Notification Test ${template.id}`));
      assert.match(received.data, new RegExp(`Test Notification ${template.id}`));
    } finally {
      await smtp.close();
    }
  });

  it('email with STARTTLS and a login; a self-signed certificate is refused unless verification is disabled', async () => {
    const smtp = await startSmtpPeer({ tls: cert, auth: { user: 'mailer', pass: 'smtp-secret' } });
    try {
      const refused = await sendTest('email', mail(smtp.port, { use_tls: true, username: 'mailer', password: 'smtp-secret' }));
      assert.equal(refused.notification.status, 'failed');
      assert.match(refused.notification.error, /self.signed|certificate/i);
      assert.equal(smtp.mails.length, 0);
      const sent = await sendTest('email', mail(smtp.port, { use_tls: true, username: 'mailer', password: 'smtp-secret', disable_ssl_verification: true }));
      assert.equal(sent.notification.status, 'successful', sent.notification.error);
      assert.equal(smtp.mails.length, 1);
      assert.equal(smtp.mails[0].secure, true);
      assert.equal(smtp.mails[0].user, 'mailer');
      assert.doesNotMatch(JSON.stringify(sent.notification), /smtp-secret/);
      const wrong = await sendTest('email', mail(smtp.port, { use_tls: true, username: 'mailer', password: 'wrong', disable_ssl_verification: true }));
      assert.equal(wrong.notification.status, 'failed');
      assert.match(wrong.notification.error, /Invalid username or password/);
    } finally {
      await smtp.close();
    }
  });

  it('email over SMTP with TLS from the start (use_ssl)', async () => {
    const smtp = await startSmtpPeer({ tls: cert, secure: true });
    try {
      const { notification } = await sendTest('email', mail(smtp.port, { use_ssl: true, disable_ssl_verification: true }));
      assert.equal(notification.status, 'successful', notification.error);
      assert.equal(smtp.mails[0].secure, true);
    } finally {
      await smtp.close();
    }
  });

  it('email: a server that is not there, and one on a refused address', async () => {
    const smtp = await startSmtpPeer();
    await smtp.close();
    const gone = await sendTest('email', mail(smtp.port));
    assert.equal(gone.notification.status, 'failed');
    assert.match(gone.notification.error, /ECONNREFUSED|connect/i);
    const metadata = await sendTest('email', mail(25, { host: '169.254.169.254' }));
    assert.equal(metadata.notification.status, 'failed');
    assert.match(metadata.notification.error, /Refused/);
  });

  it('slack posts to chat.postMessage with the token, per channel and thread, with the color as an attachment', async () => {
    peer.answers.set('/slack/chat.postMessage', { status: 200, body: '{"ok": true}' });
    const { template, notification } = await sendTest('slack', { token: 'xoxb-slack-secret', channels: ['#ops', 'dev,1700000000.1'], hex_color: '#ff0000', api_url: `${peer.base}/slack` });
    assert.equal(notification.status, 'successful', notification.error);
    assert.equal(notification.notifications_sent, 2);
    const calls = peer.received.filter((r) => r.url === '/slack/chat.postMessage').slice(-2);
    assert.equal(calls[0].headers.authorization, 'Bearer xoxb-slack-secret');
    const first = JSON.parse(calls[0].body);
    assert.equal(first.channel, 'ops');
    assert.deepEqual(first.attachments, [{ color: '#ff0000', text: `Notification Test ${template.id} ` }]);
    const second = JSON.parse(calls[1].body);
    assert.equal(second.channel, 'dev');
    assert.equal(second.thread_ts, '1700000000.1');
    peer.answers.set('/slack-bad/chat.postMessage', { status: 200, body: '{"ok": false, "error": "channel_not_found"}' });
    const bad = await sendTest('slack', { token: 'x', channels: ['#nope'], api_url: `${peer.base}/slack-bad` });
    assert.equal(bad.notification.status, 'failed');
    assert.match(bad.notification.error, /channel_not_found/);
  });

  it('mattermost and rocket.chat post their JSON payloads', async () => {
    const mm = await sendTest('mattermost', {
      mattermost_url: `${peer.base}/mattermost`, mattermost_no_verify_ssl: false, mattermost_channel: 'town', mattermost_username: 'drover', mattermost_icon_url: 'http://icons.example/d.png',
    });
    assert.equal(mm.notification.status, 'successful', mm.notification.error);
    assert.deepEqual(JSON.parse(lastTo('/mattermost').body), {
      icon_url: 'http://icons.example/d.png', channel: 'town', username: 'drover', text: `Notification Test ${mm.template.id} `,
    });
    const rc = await sendTest('rocketchat', { rocketchat_url: `${peer.base}/rocket`, rocketchat_no_verify_ssl: false, rocketchat_username: 'drover' });
    assert.equal(rc.notification.status, 'successful', rc.notification.error);
    assert.deepEqual(JSON.parse(lastTo('/rocket').body), { text: `Notification Test ${rc.template.id} `, username: 'drover' });
  });

  it('grafana posts an annotation with the key, dashboard, panel and tags', async () => {
    const { template, notification } = await sendTest('grafana', {
      grafana_url: `${peer.base}/grafana`, grafana_key: 'grafana-secret', dashboardId: 7, panelId: 3, annotation_tags: ['drover', 'ci'],
    });
    assert.equal(notification.status, 'successful', notification.error);
    const call = lastTo('/grafana/api/annotations');
    assert.equal(call.headers.authorization, 'Bearer grafana-secret');
    assert.deepEqual(JSON.parse(call.body), { isRegion: true, dashboardId: 7, panelId: 3, tags: ['drover', 'ci'], text: `Notification Test ${template.id} ` });
  });

  it('pagerduty triggers an incident with the service key, description, details and client', async () => {
    const { template, notification } = await sendTest('pagerduty', {
      subdomain: 'acme', token: 'pd-secret', service_key: 'svc-key', client_name: 'Drover', events_url: `${peer.base}/pd`,
    });
    assert.equal(notification.status, 'successful', notification.error);
    assert.equal(notification.recipients, 'svc-key');
    const call = lastTo('/pd/generic/2010-04-15/create_event.json');
    assert.deepEqual(JSON.parse(call.body), {
      service_key: 'svc-key', event_type: 'trigger', description: `Notification Test ${template.id} `, details: `Test Notification ${template.id} `, client: 'Drover',
    });
  });

  it('twilio sends one SMS per number with the account credentials', async () => {
    const { template, notification } = await sendTest('twilio', {
      account_sid: 'AC123', account_token: 'twilio-secret', from_number: '+15550001', to_numbers: ['+15550002', '+15550003'], api_url: `${peer.base}/twilio`,
    });
    assert.equal(notification.status, 'successful', notification.error);
    assert.equal(notification.notifications_sent, 2);
    const calls = peer.received.filter((r) => r.url === '/twilio/2010-04-01/Accounts/AC123/Messages.json');
    assert.equal(calls.length, 2);
    assert.equal(calls[0].headers.authorization, `Basic ${Buffer.from('AC123:twilio-secret').toString('base64')}`);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(calls[1].body)), { To: '+15550003', From: '+15550001', Body: `Notification Test ${template.id} ` });
  });

  it('irc registers, waits for the welcome, joins channels and sends PRIVMSG to each target', async () => {
    const irc = await startIrcPeer();
    try {
      const { template, notification } = await sendTest('irc', {
        server: 'localhost', port: irc.port, nickname: 'drover', password: 'irc-secret', use_ssl: false, targets: ['#ops', 'alice'],
      });
      assert.equal(notification.status, 'successful', notification.error);
      assert.equal(notification.notifications_sent, 2);
      const lines = irc.lines;
      assert.deepEqual(lines.slice(0, 3), ['PASS irc-secret', 'NICK drover', 'USER drover 0 * :drover']);
      assert.ok(lines.includes('PONG :check'), lines.join('|'));
      assert.ok(lines.includes('JOIN #ops'));
      assert.ok(lines.includes(`PRIVMSG #ops :Notification Test ${template.id} `));
      assert.ok(lines.includes(`PRIVMSG alice :Notification Test ${template.id} `));
      assert.ok(lines.at(-1)!.startsWith('QUIT'));
    } finally {
      await irc.close();
    }
    const closed = await sendTest('irc', { server: '127.0.0.1', port: irc.port, nickname: 'drover', password: '', use_ssl: false, targets: ['#ops'] });
    assert.equal(closed.notification.status, 'failed');
    assert.match(closed.notification.error, /ECONNREFUSED/);
  });

  it('a webhook to an HTTPS peer with a self-signed certificate fails unless verification is disabled', async () => {
    const secure = await startHttpPeer(cert);
    try {
      const refused = await sendTest('webhook', { url: `${secure.base}/tls`, headers: {} });
      assert.equal(refused.notification.status, 'failed');
      assert.match(refused.notification.error, /self.signed|certificate/i);
      const sent = await sendTest('webhook', { url: `${secure.base}/tls`, headers: {}, disable_ssl_verification: true });
      assert.equal(sent.notification.status, 'successful', sent.notification.error);
      assert.equal(secure.received.length, 1);
    } finally {
      await secure.close();
    }
  });
});
