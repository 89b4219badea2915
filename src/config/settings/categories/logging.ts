import type { FieldErrors } from '../../../api/errors.ts';
import { boolean, choice, FieldProblem, integer, secret, text } from '../../../api/fields.ts';
import { stringList } from '../shapes.ts';
import { category, setting } from '../types.ts';

export type LogAggregatorType = 'logstash' | 'splunk' | 'loggly' | 'sumologic' | 'other';
export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

/** The loggers AWX 24.6.1 can send (LOG_AGGREGATOR_LOGGERS): `awx` is the service log, the others its analytics loggers. */
export const AGGREGATOR_LOGGERS = ['awx', 'activity_stream', 'job_events', 'system_tracking', 'broadcast_websocket'] as const;
export type AggregatorLogger = (typeof AGGREGATOR_LOGGERS)[number];

export const logging = category({
  slug: 'logging',
  name: 'Logging',
  description: 'Sending the service logs to an external log aggregator.',
  settings: {
    LOG_AGGREGATOR_HOST: setting<string | null>(
      text({
        nullable: true,
        maxLength: 1024,
        label: 'Logging Aggregator',
        helpText: 'Hostname/IP where external logs will be sent to.',
      }),
    ),
    LOG_AGGREGATOR_PORT: setting<number | null>(
      integer({
        nullable: true,
        min: 1,
        max: 65535,
        label: 'Logging Aggregator Port',
        helpText: 'Port on Logging Aggregator to send logs to (if required and not provided in Logging Aggregator).',
      }),
    ),
    LOG_AGGREGATOR_TYPE: setting<LogAggregatorType | null>(
      choice(
        [
          ['logstash', 'Logstash'],
          ['splunk', 'Splunk'],
          ['loggly', 'Loggly'],
          ['sumologic', 'Sumologic'],
          ['other', 'Other'],
        ],
        { nullable: true, label: 'Logging Aggregator Type', helpText: 'Format messages for the chosen log aggregator.' },
      ),
    ),
    LOG_AGGREGATOR_TOWER_UUID: setting<string>(
      text({ default: '', maxLength: 1024, label: 'Cluster-wide unique identifier.', helpText: 'Useful to uniquely identify instances.' }),
    ),
    LOG_AGGREGATOR_PROTOCOL: setting<'https' | 'tcp' | 'udp'>(
      choice(
        [
          ['https', 'HTTPS/HTTP'],
          ['tcp', 'TCP'],
          ['udp', 'UDP'],
        ],
        {
          default: 'https',
          label: 'Logging Aggregator Protocol',
          helpText: 'Protocol used to communicate with log aggregator. HTTPS/HTTP assumes HTTPS unless http:// is explicitly used in the Logging Aggregator hostname.',
        },
      ),
    ),
    LOG_AGGREGATOR_USERNAME: setting<string>(
      text({ default: '', maxLength: 1024, label: 'Logging Aggregator Username', helpText: 'Username for external log aggregator (if required; HTTP/s only).' }),
    ),
    LOG_AGGREGATOR_PASSWORD: setting<string>(
      secret({ label: 'Logging Aggregator Password/Token', helpText: 'Password or authentication token for external log aggregator (if required; HTTP/s only).' }),
    ),
    LOG_AGGREGATOR_LOGGERS: setting<AggregatorLogger[]>(
      stringList({
        default: [...AGGREGATOR_LOGGERS],
        label: 'Loggers Sending Data to Log Aggregator Form',
        helpText: 'List of loggers that will send HTTP logs to the collector, these can include any or all of: \n'
          + 'awx - service logs\nactivity_stream - activity stream records\njob_events - callback data from Ansible job events\n'
          + 'system_tracking - facts gathered from scan jobs\nbroadcast_websocket - errors pertaining to websockets broadcast metrics\n',
        item: (name) => {
          if (!(AGGREGATOR_LOGGERS as readonly string[]).includes(name)) throw new FieldProblem(`"${name}" is not a valid choice.`);
        },
      }),
      { child: { type: 'string' } },
    ),
    LOG_AGGREGATOR_INDIVIDUAL_FACTS: setting<boolean>(
      boolean({
        default: false,
        label: 'Log System Tracking Facts Individually',
        helpText: 'If set, system tracking facts will be sent for each package, service, or other item found in a scan, allowing for greater search query granularity. If unset, facts will be sent as a single dictionary, allowing for greater efficiency in fact processing.',
      }),
    ),
    LOG_AGGREGATOR_ENABLED: setting<boolean>(
      boolean({
        default: false,
        label: 'Enable External Logging',
        helpText: 'Enable sending logs to external log aggregator.',
      }),
    ),
    LOG_AGGREGATOR_TCP_TIMEOUT: setting<number>(
      integer({
        default: 5,
        min: 1,
        label: 'TCP Connection Timeout',
        helpText: 'Number of seconds for a TCP connection to external log aggregator to timeout. Applies to HTTPS and TCP log aggregator protocols.',
      }),
    ),
    LOG_AGGREGATOR_VERIFY_CERT: setting<boolean>(
      boolean({
        default: true,
        label: 'Enable/disable HTTPS certificate verification',
        helpText: 'Flag to control enable/disable of certificate verification when LOG_AGGREGATOR_PROTOCOL is "https". If enabled, the log handler will verify certificate sent by external log aggregator before establishing connection.',
      }),
    ),
    LOG_AGGREGATOR_LEVEL: setting<LogLevel>(
      choice(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'], {
        default: 'WARNING',
        label: 'Logging Aggregator Level Threshold',
        helpText: 'Level threshold used by log handler. Severities from lowest to highest are DEBUG, INFO, WARNING, ERROR, CRITICAL. Messages less severe than the threshold will be ignored by log handler. (messages under category awx.anlytics ignore this setting)',
      }),
    ),
  },
  validate(value) {
    if (value('LOG_AGGREGATOR_ENABLED') !== true) return null;
    const problems: string[] = [];
    if (!value('LOG_AGGREGATOR_HOST')) problems.push('Cannot enable log aggregator without providing host.');
    if (!value('LOG_AGGREGATOR_TYPE')) problems.push('Cannot enable log aggregator without providing type.');
    const errors: FieldErrors = problems.length ? { LOG_AGGREGATOR_ENABLED: problems } : {};
    return problems.length ? errors : null;
  },
});
