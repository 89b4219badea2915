import type { OutboundPolicy } from '../../net/outbound.ts';
import { OutboundFailed, OutboundRefused } from '../../net/outbound.ts';

/** One notification to send: the rendered subject and body, and the template's configuration in clear. */
export interface Outgoing {
  subject: string;
  body: string;
  configuration: Record<string, any>;
}

/** Sends a notification; answers how many messages went out, or throws why it could not. */
export type Backend = (outgoing: Outgoing, policy: OutboundPolicy) => Promise<number>;

export class SendFailed extends Error {}

/** The body as the JSON object it holds, or null (AWX's format_body of webhooks and Grafana). */
export function jsonObjectOf(body: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** An answer of 400 or more is a failure, named with the service (AWX's "Error sending notification mattermost: 500"). */
export function checkStatus(service: string, status: number): void {
  if (status >= 400) throw new SendFailed(`Error sending notification ${service}: ${status}`);
}

export const isGuardError = (err: unknown) => err instanceof OutboundRefused || err instanceof OutboundFailed;

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Drops line breaks from text that goes into a single-line protocol field. */
export const oneLine = (text: string) => text.replace(/[\r\n\0]+/g, ' ');
