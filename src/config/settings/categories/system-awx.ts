/**
 * System settings AWX 24 has beyond the spec's, with AWX's defaults, types and checks.
 * docs/settings.md says what each does in Drover (several belong to AWX's subscription and
 * analytics services, which Drover does not have: they are stored and change nothing).
 */
import { existsSync } from 'node:fs';
import { FieldProblem, boolean, choice, integer, json, secret, text } from '../../../api/fields.ts';
import { stringList } from '../shapes.ts';
import { computedSetting, setting } from '../types.ts';

const URL = /^https?:\/\/[^\s/?#]+(\/[^\s]*)?$/i;

const readOnlyText = (value: string, label: string, helpText = '') => setting<string>(text({ default: value, readOnly: true, label, helpText }));

export const awxSystemSettings = {
  ACTIVITY_STREAM_ENABLED_FOR_INVENTORY_SYNC: setting<boolean>(
    boolean({
      default: false,
      label: 'Enable Activity Stream for Inventory Sync',
      helpText: 'Enable capturing activity for the activity stream when running inventory sync.',
    }),
  ),
  CSRF_TRUSTED_ORIGINS: setting<string[]>(
    stringList({
      label: 'CSRF Trusted Origins List',
      helpText:
        'If the service is behind a reverse proxy/load balancer, use this setting to configure the schema://addresses from which the service should trust Origin header values. ',
      item: (origin) => {
        if (!origin.includes('://')) {
          throw new FieldProblem(
            `As of Django 4.0, the values in the CSRF_TRUSTED_ORIGINS setting must start with a scheme (usually http:// or https://) but found ${origin}. See the release notes for details.`,
          );
        }
      },
    }),
    { child: { type: 'string' } },
  ),
  // Changed only through /api/v2/config/ in AWX; Drover has no subscriptions, so it stays empty.
  LICENSE: computedSetting<Record<string, never>>(
    json({
      label: 'License',
      helpText: 'The license controls which features and functionality are enabled. Use /api/v2/config/ to update or change the license.',
    }),
    () => ({}),
  ),
  REDHAT_USERNAME: setting<string>(text({ label: 'Red Hat customer username', helpText: 'This username is used to send data to Automation Analytics' })),
  REDHAT_PASSWORD: setting<string>(secret({ label: 'Red Hat customer password', helpText: 'This password is used to send data to Automation Analytics' })),
  SUBSCRIPTIONS_USERNAME: setting<string>(
    text({ label: 'Red Hat or Satellite username', helpText: 'This username is used to retrieve subscription and content information' }),
  ),
  SUBSCRIPTIONS_PASSWORD: setting<string>(
    secret({ label: 'Red Hat or Satellite password', helpText: 'This password is used to retrieve subscription and content information' }),
  ),
  AUTOMATION_ANALYTICS_URL: setting<string>(
    text({
      default: 'https://example.com',
      pattern: URL,
      patternMessage: 'Enter a valid URL',
      label: 'Automation Analytics upload URL',
      helpText: 'This setting is used to to configure the upload URL for data collection for Automation Analytics.',
    }),
  ),
  INSTALL_UUID: computedSetting<string>(text({ label: 'Unique identifier for an installation' }), (facts) => facts.installUuid),
  DEFAULT_CONTROL_PLANE_QUEUE_NAME: readOnlyText('controlplane', 'The instance group where control plane tasks run'),
  DEFAULT_EXECUTION_QUEUE_NAME: readOnlyText('default', 'The instance group where user jobs run (currently only on non-VM installs)'),
  CUSTOM_VENV_PATHS: setting<string[]>(
    stringList({
      label: 'Custom virtual environment paths',
      helpText: 'Paths where Tower will look for custom virtual environments (in addition to /var/lib/awx/venv/). Enter one path per line.',
      item: (dir) => {
        if (!dir.startsWith('/') || !existsSync(dir)) throw new FieldProblem(`${dir} is not a valid path choice.`);
      },
    }),
    { child: { type: 'string' } },
  ),
  INSIGHTS_TRACKING_STATE: setting<boolean>(
    boolean({
      default: false,
      label: 'Gather data for Automation Analytics',
      helpText: 'Enables the service to gather data on automation and send it to Automation Analytics.',
    }),
  ),
  AUTOMATION_ANALYTICS_GATHER_INTERVAL: setting<number>(
    integer({ default: 14400, min: 1800, label: 'Automation Analytics Gather Interval', helpText: 'Interval (in seconds) between data gathering.' }),
    { unit: 'seconds' },
  ),
  IS_K8S: computedSetting<boolean>(
    boolean({ label: 'Is K8S', helpText: 'Indicates whether the instance is part of a kubernetes-based deployment.' }),
    () => false,
    // Always false here: the console hides it.
    { hidden: true },
  ),
  UI_NEXT: setting<boolean>(
    boolean({ default: true, label: 'Enable Preview of New User Interface', helpText: 'Enable preview of new user interface.' }),
    { hidden: true },
  ),
  SUBSCRIPTION_USAGE_MODEL: setting<'' | 'unique_managed_hosts'>(
    choice(
      [
        ['', 'Default model for AWX - no subscription. Deletion of host_metrics will not be considered for purposes of managed host counting'],
        ['unique_managed_hosts', 'Usage based on unique managed nodes in a large historical time frame and delete functionality for no longer used managed nodes'],
      ],
      { default: '', label: 'Defines subscription usage model and shows Host Metrics' },
    ),
  ),
};
