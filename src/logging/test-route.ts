/**
 * POST /api/v2/settings/logging/test/ (AWX's SettingLoggingTest, awx/conf/views.py): superusers
 * send the test message "AWX Connection Test Message" at ERROR through the first of
 * LOG_AGGREGATOR_LOGGERS, with the stored logging settings or those the body gives in their place
 * (so a form can be tried before it is saved). Unlike AWX, which hands the record to rsyslog and
 * only probes a TCP or UDP port, the record is sent at once and a failure to deliver it is answered.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../api/context.ts';
import { ApiError } from '../api/errors.ts';
import { ENCRYPTED, FieldProblem } from '../api/fields.ts';
import { viewOptions } from '../api/options.ts';
import { SUPERUSER } from '../api/permissions.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { validBody } from '../api/route-schemas.ts';
import type { AggregatorLogger } from '../config/settings/categories/logging.ts';

export const LOGGING_TEST_URL = '/api/v2/settings/logging/test/';
export const TEST_MESSAGE = 'AWX Connection Test Message';

const Body = Type.Record(Type.String(), Type.Unknown(), { description: 'Logging settings to try instead of the stored ones (any of the logging category).' });
const Failure = Type.Object({ error: Type.String() });

/** The posted settings, checked as a write of the logging category would check them; $encrypted$ keeps the stored secret. */
function overridesOf(services: Services, body: Record<string, unknown>): Record<string, unknown> {
  const scope = services.settings.registry.settingsOf('logging') ?? [];
  const errors: Record<string, string[]> = {};
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const definition = scope.find((d) => d.name === key);
    if (!definition) {
      errors[key] = ['Not a logging setting.'];
      continue;
    }
    if (definition.field.secret && value === ENCRYPTED) continue;
    try {
      values[definition.canonical] = definition.field.parse(value);
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      errors[key] = [err.message];
    }
  }
  if (Object.keys(errors).length) throw new ApiError(400, errors);
  return values;
}

export function registerLoggingTestRoute(app: FastifyInstance, services: Services): void {
  routeMethods(app, LOGGING_TEST_URL, SUPERUSER, {
    GET: async () => ({ detail: `POST to ${LOGGING_TEST_URL} to send a test message to the log aggregator.` }),
    OPTIONS: async () => viewOptions('Logging Connectivity Test', 'Sends a test message to the log aggregator: POST here, with logging settings to try in place of the stored ones if any.'),
    POST: async (request, reply) => {
      const overrides = overridesOf(services, validBody(request, Body));
      const read = (key: string) => (key in overrides ? overrides[key] : services.settings.get(key));
      if (read('LOG_AGGREGATOR_ENABLED') !== true) return reply.code(409).send({ error: 'Logging not enabled' });
      if (!read('LOG_AGGREGATOR_HOST')) return reply.code(400).send({ error: 'Cannot enable log aggregator without providing host.' });
      const protocol = read('LOG_AGGREGATOR_PROTOCOL') as string;
      if (protocol !== 'https' && !read('LOG_AGGREGATOR_PORT')) return reply.code(400).send({ error: `Port required for ${protocol}` });
      const logger = ((read('LOG_AGGREGATOR_LOGGERS') as AggregatorLogger[])[0] ?? 'awx');
      try {
        await services.logShipper.sendNow({ logger, level: 'ERROR', message: TEST_MESSAGE }, overrides);
      } catch (err) {
        return reply.code(400).send({ error: err instanceof Error ? err.message : String(err) });
      }
      return reply.code(202).send();
    },
  }, {
    GET: { summary: 'How to test the log aggregator (superusers)', response: { 200: Type.Object({ detail: Type.String() }) } },
    POST: {
      summary: 'Send a test message to the log aggregator (superusers)',
      body: Body,
      checkBody: true,
      response: { 202: Type.Null({ description: 'Sent.' }), 400: Failure, 409: Failure },
    },
  });
}
