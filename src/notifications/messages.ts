/**
 * The subject and body of a notification: the template's custom message for the event, else the
 * kind's default (AWX's default_messages), rendered in the sandbox with the run's context.
 */
import { renderSandboxed, SandboxError } from '../templating/sandbox.ts';

const MSG = "{{ job_friendly_name }} #{{ job.id }} '{{ job.name }}' {{ job.status }}: {{ url }}";
const BODY = '{{ job_friendly_name }} #{{ job.id }} had status {{ job.status }}, view details at {{ url }}\n\n{{ job_metadata }}';
const METADATA = '{{ job_metadata }}';

const APPROVAL: Record<string, string> = {
  running: 'The approval node "{{ approval_node_name }}" needs review. This node can be viewed at: {{ workflow_url }}',
  approved: 'The approval node "{{ approval_node_name }}" was approved. {{ workflow_url }}',
  timed_out: 'The approval node "{{ approval_node_name }}" has timed out. {{ workflow_url }}',
  denied: 'The approval node "{{ approval_node_name }}" was denied. {{ workflow_url }}',
};

/** Kinds whose default body is the message followed by the run's metadata (email), or the metadata alone. */
const BODY_KIND: Record<string, 'full' | 'metadata' | 'json'> = { email: 'full', grafana: 'metadata', pagerduty: 'metadata', webhook: 'json' };

export interface Pair {
  message: string | null;
  body: string | null;
}

/** The kind's default pair for an event ("started", "workflow_approval.denied"...). */
export function defaultPair(type: string, event: string): Pair {
  const kind = BODY_KIND[type];
  const sub = event.startsWith('workflow_approval.') ? event.slice('workflow_approval.'.length) : null;
  if (sub) {
    const text = APPROVAL[sub];
    if (kind === 'json') return { message: text, body: JSON.stringify({ body: text }) };
    return { message: text, body: kind ? `${text}\n\n${METADATA}` : null };
  }
  if (kind === 'json' || kind === 'metadata') return { message: MSG, body: METADATA };
  return { message: MSG, body: kind === 'full' ? BODY : null };
}

/** The custom pair the template's messages hold for the event, or nulls. */
export function customPair(messages: unknown, event: string): Pair {
  const all = (messages ?? {}) as Record<string, any>;
  const [top, sub] = event.split('.');
  const pair = sub ? all[top]?.[sub] : all[top];
  return { message: pair?.message || null, body: pair?.body || null };
}

/** Renders one template; a template that fails to render says why, in place of the text (as AWX). */
async function renderOrExplain(source: string | null, context: Record<string, unknown>): Promise<string> {
  if (!source) return '';
  try {
    return await renderSandboxed(source, context, { timeoutMs: 5_000, maxOutputChars: 200_000 });
  } catch (err) {
    if (err instanceof SandboxError) return `Unable to render the message template: ${err.message}`;
    throw err;
  }
}

export async function renderPair(type: string, messages: unknown, event: string, context: Record<string, unknown>): Promise<{ subject: string; body: string }> {
  const custom = customPair(messages, event);
  const fallback = defaultPair(type, event);
  const subject = await renderOrExplain(custom.message ?? fallback.message, context);
  const body = await renderOrExplain(custom.body ?? fallback.body, context);
  return { subject, body };
}

/** What a test notification says (AWX's NotificationTemplateTest). */
export function testPair(type: string, templateId: number, base: string): { subject: string; body: string } {
  const text = `Test Notification ${templateId} ${base}`;
  return {
    subject: `Notification Test ${templateId} ${base}`,
    body: type === 'email' || type === 'pagerduty' ? text : JSON.stringify({ body: text }),
  };
}
