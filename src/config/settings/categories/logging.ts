import type { FieldErrors } from '../../../api/errors.ts';
import { boolean, choice, integer, text } from '../../../api/fields.ts';
import { category, setting } from '../types.ts';

export type LogAggregatorType = 'logstash' | 'splunk' | 'loggly' | 'sumologic' | 'other';
export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

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
    LOG_AGGREGATOR_ENABLED: setting<boolean>(
      boolean({
        default: false,
        label: 'Enable External Logging',
        helpText: 'Enable sending logs to external log aggregator.',
      }),
    ),
    LOG_AGGREGATOR_LEVEL: setting<LogLevel>(
      choice(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'], {
        default: 'WARNING',
        label: 'Logging Aggregator Level Threshold',
        helpText: 'Level threshold used by log handler. Severities from lowest to highest are DEBUG, INFO, WARNING, ERROR, CRITICAL. Messages less severe than the threshold will be ignored by log handler.',
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
