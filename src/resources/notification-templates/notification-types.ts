/**
 * The kinds of notification template and the fields of each one's notification_configuration, as
 * AWX's backends declare them (init parameters): a field without a default is required; password
 * fields are secret. Fields a backend reads beyond its init parameters are optional here.
 */
export type ConfigFieldType = 'string' | 'int' | 'bool' | 'list' | 'password' | 'object';

export interface ConfigField {
  label: string;
  type: ConfigFieldType;
  /** Present: the field may be left out (this value is stored). Absent: required. */
  default?: unknown;
  /** Not among AWX's init parameters: may be left out, and nothing is stored for it then. */
  optional?: true;
}

export interface NotificationType {
  label: string;
  fields: Readonly<Record<string, ConfigField>>;
  /** The field naming who receives it (a notification's `recipients`). */
  recipients: string;
}

const f = (label: string, type: ConfigFieldType, extra: Partial<ConfigField> = {}): ConfigField => ({ label, type, ...extra });
const opt = (label: string, type: ConfigFieldType): ConfigField => ({ label, type, optional: true });

export const NOTIFICATION_TYPES: Readonly<Record<string, NotificationType>> = {
  email: {
    label: 'Email',
    recipients: 'recipients',
    fields: {
      host: f('Host', 'string'),
      port: f('Port', 'int'),
      username: f('Username', 'string'),
      password: f('Password', 'password'),
      use_tls: f('Use TLS', 'bool'),
      use_ssl: f('Use SSL', 'bool'),
      sender: f('Sender Email', 'string'),
      recipients: f('Recipient List', 'list'),
      timeout: f('Timeout', 'int', { default: 30 }),
      // Accept any certificate from the mail server (AWX always verifies it).
      disable_ssl_verification: opt('Disable SSL Verification', 'bool'),
    },
  },
  grafana: {
    label: 'Grafana',
    recipients: 'grafana_url',
    fields: {
      grafana_url: f('Grafana URL', 'string'),
      grafana_key: f('Grafana API Key', 'password'),
      dashboardId: opt('ID of the Dashboard', 'int'),
      panelId: opt('ID of the Panel', 'int'),
      annotation_tags: opt('Tags for the Annotation', 'list'),
      grafana_no_verify_ssl: opt('Disable SSL Verification', 'bool'),
    },
  },
  irc: {
    label: 'IRC',
    recipients: 'targets',
    fields: {
      server: f('IRC Server Address', 'string'),
      port: f('IRC Server Port', 'int'),
      nickname: f('IRC Nick', 'string'),
      password: f('IRC Server Password', 'password'),
      use_ssl: f('SSL Connection', 'bool'),
      targets: f('Destination Channels or Users', 'list'),
    },
  },
  mattermost: {
    label: 'Mattermost',
    recipients: 'mattermost_url',
    fields: {
      mattermost_url: f('Target URL', 'string'),
      mattermost_no_verify_ssl: f('Verify SSL', 'bool'),
      mattermost_username: opt('Username', 'string'),
      mattermost_channel: opt('Channel', 'string'),
      mattermost_icon_url: opt('Icon URL', 'string'),
    },
  },
  pagerduty: {
    label: 'Pagerduty',
    recipients: 'service_key',
    fields: {
      subdomain: f('Pagerduty subdomain', 'string'),
      token: f('API Token', 'password'),
      service_key: f('API Service/Integration Key', 'string'),
      client_name: f('Client Identifier', 'string'),
      // Where events are sent (AWX always uses PagerDuty's own service).
      events_url: opt('Events API URL', 'string'),
    },
  },
  rocketchat: {
    label: 'Rocket.Chat',
    recipients: 'rocketchat_url',
    fields: {
      rocketchat_url: f('Target URL', 'string'),
      rocketchat_no_verify_ssl: f('Verify SSL', 'bool'),
      rocketchat_username: opt('Username', 'string'),
      rocketchat_icon_url: opt('Icon URL', 'string'),
    },
  },
  slack: {
    label: 'Slack',
    recipients: 'channels',
    fields: {
      token: f('Token', 'password'),
      channels: f('Destination Channels', 'list'),
      hex_color: opt('Notification Color', 'string'),
      // Where the Web API is (AWX always uses slack.com).
      api_url: opt('Slack API URL', 'string'),
    },
  },
  twilio: {
    label: 'Twilio',
    recipients: 'to_numbers',
    fields: {
      account_sid: f('Account SID', 'string'),
      account_token: f('Account Token', 'password'),
      from_number: f('Source Phone Number', 'string'),
      to_numbers: f('Destination SMS Numbers', 'list'),
      // Where the REST API is (AWX always uses api.twilio.com).
      api_url: opt('Twilio API URL', 'string'),
    },
  },
  webhook: {
    label: 'Webhook',
    recipients: 'url',
    fields: {
      url: f('Target URL', 'string'),
      http_method: f('HTTP Method', 'string', { default: 'POST' }),
      disable_ssl_verification: f('Verify SSL', 'bool', { default: false }),
      username: f('Username', 'string', { default: '' }),
      password: f('Password', 'password', { default: '' }),
      headers: f('HTTP Headers', 'object'),
    },
  },
};

/** The public services AWX talks to, where the configuration names none. */
export const DEFAULT_SERVICE_URLS = {
  slack: 'https://slack.com/api',
  pagerduty: 'https://events.pagerduty.com',
  twilio: 'https://api.twilio.com',
} as const;

export const NOTIFICATION_TYPE_CHOICES = Object.entries(NOTIFICATION_TYPES).map(([value, type]) => [value, type.label] as const);

/** The secret fields of a kind. */
export const secretFields = (type: string): string[] =>
  Object.entries(NOTIFICATION_TYPES[type]?.fields ?? {}).filter(([, field]) => field.type === 'password').map(([name]) => name);

/** Each kind's fields as AWX's OPTIONS describes them (label, type, default). */
export function configurationMeta(): Record<string, unknown> {
  return Object.fromEntries(Object.entries(NOTIFICATION_TYPES).map(([type, kind]) => [
    type,
    Object.fromEntries(Object.entries(kind.fields).map(([name, field]) => [name, { label: field.label, type: field.type, ...('default' in field && { default: field.default }) }])),
  ]));
}
