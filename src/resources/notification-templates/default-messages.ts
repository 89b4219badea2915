/**
 * The messages a notification says when its template has no custom ones for the event (AWX's
 * default_messages of each backend): the message (subject) and, for some kinds, a body.
 */
const MSG = "{{ job_friendly_name }} #{{ job.id }} '{{ job.name }}' {{ job.status }}: {{ url }}";
const BODY = '{{ job_friendly_name }} #{{ job.id }} had status {{ job.status }}, view details at {{ url }}\n\n{{ job_metadata }}';
const METADATA = '{{ job_metadata }}';

const APPROVAL: Record<string, string> = {
  running: 'The approval node "{{ approval_node_name }}" needs review. This node can be viewed at: {{ workflow_url }}',
  approved: 'The approval node "{{ approval_node_name }}" was approved. {{ workflow_url }}',
  timed_out: 'The approval node "{{ approval_node_name }}" has timed out. {{ workflow_url }}',
  denied: 'The approval node "{{ approval_node_name }}" was denied. {{ workflow_url }}',
};

const DRIFT_ALERT = 'Drift alert "{{ rule_name }}": {{ summary }}';
const DRIFT_ALERT_JSON = '{{ drift_alert | tojson }}';
const EVENT_RULE = 'Event rule "{{ rule_name }}" fired on a {{ event_type }} event ({{ event_guid }})';
const SERVICE_REQUEST = 'Service request #{{ service_request.id }} for "{{ service_request.catalog_item.name }}" by {{ service_request.requester }}: {{ service_request.status }} {{ url_base }}{{ service_request.path }}';
const SERVICE_REQUEST_JSON = '{{ service_request | tojson }}';
const EVENT_RULE_JSON = '{{ eda_event | tojson }}';

/** Kinds whose default body is the message followed by the run's metadata (email), or the metadata alone. */
const BODY_KIND: Record<string, 'full' | 'metadata' | 'json'> = { email: 'full', grafana: 'metadata', pagerduty: 'metadata', webhook: 'json' };

export interface Pair {
  message: string | null;
  body: string | null;
}

/** The kind's default pair for an event ("started", "workflow_approval.denied"...). */
export function defaultPair(type: string, event: string): Pair {
  const kind = BODY_KIND[type];
  if (event === 'drift_alert') return { message: DRIFT_ALERT, body: kind === 'json' ? DRIFT_ALERT_JSON : kind ? `${DRIFT_ALERT}\n\n${DRIFT_ALERT_JSON}` : null };
  if (event === 'event_rule') return { message: EVENT_RULE, body: kind === 'json' ? EVENT_RULE_JSON : kind ? `${EVENT_RULE}\n\n${EVENT_RULE_JSON}` : null };
  if (event.startsWith('service_request.')) {
    return { message: SERVICE_REQUEST, body: kind === 'json' ? SERVICE_REQUEST_JSON : kind ? `${SERVICE_REQUEST}\n\n${SERVICE_REQUEST_JSON}` : null };
  }
  const sub = event.startsWith('workflow_approval.') ? event.slice('workflow_approval.'.length) : null;
  if (sub) {
    const text = APPROVAL[sub];
    if (kind === 'json') return { message: text, body: JSON.stringify({ body: text }) };
    return { message: text, body: kind ? `${text}\n\n${METADATA}` : null };
  }
  if (kind === 'json' || kind === 'metadata') return { message: MSG, body: METADATA };
  return { message: MSG, body: kind === 'full' ? BODY : null };
}

/** The defaults of a kind in the shape of `messages` (what OPTIONS shows, as AWX). */
export function defaultMessages(type: string): Record<string, unknown> {
  const approvals = Object.fromEntries(Object.keys(APPROVAL).map((sub) => [sub, defaultPair(type, `workflow_approval.${sub}`)]));
  return { started: defaultPair(type, 'started'), success: defaultPair(type, 'success'), error: defaultPair(type, 'error'), workflow_approval: approvals };
}
