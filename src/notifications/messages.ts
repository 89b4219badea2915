/**
 * The subject and body of a notification: the template's custom message for the event, else the
 * kind's default (AWX's default_messages), rendered in the sandbox with the run's context.
 */
import { defaultPair, type Pair } from '../resources/notification-templates/default-messages.ts';
import { renderSandboxed, SandboxError } from '../templating/sandbox.ts';

/** The custom pair the template's messages hold for the event, or nulls. */
export function customPair(messages: unknown, event: string): Pair {
  const all = (messages ?? {}) as Record<string, any>;
  const [top, sub] = event.split('.');
  const pair = sub ? all[top]?.[sub] : all[top];
  return { message: pair?.message || null, body: pair?.body || null };
}

/** Renders one template for `organization` (the notification template's); a template that fails to render says why, in place of the text (as AWX). */
async function renderOrExplain(source: string | null, context: Record<string, unknown>, organization: number | null): Promise<string> {
  if (!source) return '';
  try {
    return await renderSandboxed(source, context, { organization, serviceWork: true, timeoutMs: 2_000, maxOutputChars: 200_000 });
  } catch (err) {
    if (err instanceof SandboxError) return `Unable to render the message template: ${err.message}`;
    throw err;
  }
}

export async function renderPair(type: string, messages: unknown, event: string, context: Record<string, unknown>, organization: number | null): Promise<{ subject: string; body: string }> {
  const custom = customPair(messages, event);
  const fallback = defaultPair(type, event);
  const subject = await renderOrExplain(custom.message ?? fallback.message, context, organization);
  const body = await renderOrExplain(custom.body ?? fallback.body, context, organization);
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
