import type { Backend } from './backend.ts';
import { email } from './email.ts';
import { grafana, mattermost, pagerduty, rocketchat, slack, twilio, webhook } from './http-backends.ts';
import { irc } from './irc.ts';

/** The backend of each notification kind. */
export const BACKENDS: Readonly<Record<string, Backend>> = { email, grafana, irc, mattermost, pagerduty, rocketchat, slack, twilio, webhook };
