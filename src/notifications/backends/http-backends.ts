/**
 * The kinds that send over HTTP, each sending what AWX's backend sends, through the outbound guard.
 * Slack, PagerDuty and Twilio go to their public APIs unless the configuration names another base URL.
 */
import { sendOutbound } from '../../net/outbound.ts';
import { DEFAULT_SERVICE_URLS } from '../../resources/notification-templates/notification-types.ts';
import { basic, checkStatus, jsonObjectOf, SendFailed, type Backend } from './backend.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const USER_AGENT = { 'user-agent': 'Drover' };
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection']);
const base = (configured: unknown, fallback: string) => String(configured || fallback).replace(/\/+$/, '');

/** Options AWX copies into chat payloads when set (trimmed). */
function chatExtras(configuration: Record<string, any>, names: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [option, key] of Object.entries(names)) if (typeof configuration[option] === 'string' && configuration[option] !== '') out[key] = configuration[option].trim();
  return out;
}

export const webhook: Backend = async ({ body, configuration: c }, policy) => {
  const object = jsonObjectOf(body);
  // A body that is a JSON object is sent as JSON (AWX); any other rendered body is sent as it is.
  const payload = object ? JSON.stringify(object) : body;
  const headers: Record<string, string> = { ...USER_AGENT, 'content-type': object ? 'application/json' : 'text/plain; charset=utf-8' };
  for (const [name, value] of Object.entries((c.headers ?? {}) as Record<string, string>)) {
    // The request's framing is not the user's to set.
    if (!FRAMING.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  if (c.username || c.password) headers.authorization = basic(c.username ?? '', c.password ?? '');
  const answer = await sendOutbound(
    { url: c.url, method: String(c.http_method ?? 'POST').toUpperCase(), headers, body: payload, verifyTls: !c.disable_ssl_verification },
    policy,
  );
  checkStatus('webhook', answer.status);
  return 1;
};

export const slack: Backend = async ({ subject, configuration: c }, policy) => {
  const color = typeof c.hex_color === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(c.hex_color) ? c.hex_color : null;
  let sent = 0;
  for (const target of c.channels as string[]) {
    const [channel, thread] = target.replace(/^#/, '').split(',');
    const message = color ? { attachments: [{ color, text: subject }] } : { text: subject };
    const answer = await sendOutbound({
      url: `${base(c.api_url, DEFAULT_SERVICE_URLS.slack)}/chat.postMessage`,
      method: 'POST',
      headers: { ...JSON_HEADERS, ...USER_AGENT, authorization: `Bearer ${c.token}` },
      body: JSON.stringify({ channel, ...(thread && { thread_ts: thread }), as_user: true, ...message }),
    }, policy);
    checkStatus('slack', answer.status);
    const reply = jsonObjectOf(answer.body);
    if (reply?.ok !== true) throw new SendFailed(`Slack Notification unable to send ${target}: ${String(reply?.error ?? 'no answer')}`);
    sent += 1;
  }
  return sent;
};

export const mattermost: Backend = async ({ subject, configuration: c }, policy) => {
  const payload = { ...chatExtras(c, { mattermost_icon_url: 'icon_url', mattermost_channel: 'channel', mattermost_username: 'username' }), text: subject };
  const answer = await sendOutbound(
    { url: c.mattermost_url, method: 'POST', headers: { ...JSON_HEADERS, ...USER_AGENT }, body: JSON.stringify(payload), verifyTls: !c.mattermost_no_verify_ssl },
    policy,
  );
  checkStatus('mattermost', answer.status);
  return 1;
};

export const rocketchat: Backend = async ({ subject, configuration: c }, policy) => {
  const payload = { text: subject, ...chatExtras(c, { rocketchat_icon_url: 'icon_url', rocketchat_username: 'username' }) };
  const answer = await sendOutbound(
    { url: c.rocketchat_url, method: 'POST', headers: { ...JSON_HEADERS, ...USER_AGENT }, body: JSON.stringify(payload), verifyTls: !c.rocketchat_no_verify_ssl },
    policy,
  );
  checkStatus('rocket.chat', answer.status);
  return 1;
};

const epochMs = (value: unknown) => {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new SendFailed(`Error converting time ${String(value)} to int.`);
  return ms;
};

/** An annotation spanning the run (its start to its end), on a dashboard and panel when configured. */
export const grafana: Backend = async ({ subject, body, configuration: c }, policy) => {
  const metadata = jsonObjectOf(body) ?? {};
  const annotation: Record<string, unknown> = {};
  if ('started' in metadata && metadata.started) {
    annotation.time = annotation.timeEnd = epochMs(metadata.started);
    if (metadata.finished) annotation.timeEnd = epochMs(metadata.finished);
  }
  annotation.isRegion = true;
  if (c.dashboardId !== undefined && c.dashboardId !== null) annotation.dashboardId = c.dashboardId;
  if (c.panelId !== undefined && c.panelId !== null) annotation.panelId = c.panelId;
  if (Array.isArray(c.annotation_tags) && c.annotation_tags.length) annotation.tags = c.annotation_tags;
  annotation.text = subject;
  const answer = await sendOutbound({
    url: `${base(c.grafana_url, '')}/api/annotations`,
    method: 'POST',
    headers: { ...JSON_HEADERS, ...USER_AGENT, authorization: `Bearer ${c.grafana_key}` },
    body: JSON.stringify(annotation),
    verifyTls: !c.grafana_no_verify_ssl,
  }, policy);
  checkStatus('grafana', answer.status);
  return 1;
};

/** An incident triggered through PagerDuty's events API, as AWX's client sends it. */
export const pagerduty: Backend = async ({ subject, body, configuration: c }, policy) => {
  const details = jsonObjectOf(body) ?? body;
  const answer = await sendOutbound({
    url: `${base(c.events_url, DEFAULT_SERVICE_URLS.pagerduty)}/generic/2010-04-15/create_event.json`,
    method: 'POST',
    headers: { ...JSON_HEADERS, ...USER_AGENT, authorization: `Token token=${c.token}` },
    body: JSON.stringify({ service_key: c.service_key, event_type: 'trigger', description: subject, details, client: c.client_name }),
  }, policy);
  checkStatus('pagerduty', answer.status);
  return 1;
};

/** One SMS per destination number through Twilio's REST API. */
export const twilio: Backend = async ({ subject, configuration: c }, policy) => {
  let sent = 0;
  const failures: string[] = [];
  for (const to of c.to_numbers as string[]) {
    const form = new URLSearchParams({ To: to, From: c.from_number, Body: subject }).toString();
    try {
      const answer = await sendOutbound({
        url: `${base(c.api_url, DEFAULT_SERVICE_URLS.twilio)}/2010-04-01/Accounts/${encodeURIComponent(c.account_sid)}/Messages.json`,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...USER_AGENT, authorization: basic(c.account_sid, c.account_token) },
        body: form,
      }, policy);
      checkStatus('twilio', answer.status);
      sent += 1;
    } catch (err) {
      failures.push(`${to}: ${(err as Error).message}`);
    }
  }
  if (failures.length) throw new SendFailed(`Exception sending messages: ${failures.join('; ')}`);
  return sent;
};
