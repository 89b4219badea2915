/**
 * Event rule endpoints beyond CRUD (docs/event-driven.md#enable-disable-test): enable/disable, the key at webhook_key/
 * (organization admins; POST rotates) and test/, a dry run of the conditions over a payload that
 * launches nothing.
 */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { FieldProblem } from '../../api/fields.ts';
import { ValidationError } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { actionOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import type { EventRuleRow } from '../../db/tables.ts';
import { enableDisableRoutes } from '../../api/toggle-routes.ts';
import { decryptSecret } from '../../secrets/encryption.ts';
import { webhookKeyRoutes } from '../webhooks/webhook-key-routes.ts';
import { conditionHeaders, evaluateConditions, parseConditions, type Condition } from './conditions.ts';
import { eventRules, newStoredRuleKey } from './event-rule.resource.ts';
import { EVENT_RULE_KEY_PURPOSE, OUTSIDE_THROTTLE } from './receiving-rules.ts';

/** POST test/: the event, and conditions to try, checked as a rule's own are (parseConditions). */
const TestBody = Type.Object({
  payload: Type.Record(Type.String(), Type.Unknown(), {
    errorMessage: 'Expected a JSON object: the event as the sender would post it.',
    description: 'The event as the sender would post it.',
  }),
  headers: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    errorMessage: 'Expected a JSON object of header names and values.',
    description: 'Headers the conditions see (names in lower case).',
  })),
  conditions: Type.Optional(Type.Unknown({ description: "Conditions to try instead of the rule's own: [{jinja2_expression, description?}]." })),
}, { additionalProperties: true });

export const eventRuleRoutes: RouteModule = async (app, services) => {
  enableDisableRoutes(app, services, services.resources.get('event_rule'), (tx) => services.caches.receivingRules.changed(tx));
  await webhookKeyRoutes(eventRules, {
    action: 'webhook_key',
    newStoredKey: newStoredRuleKey,
    keyOf: (row) => decryptSecret(EVENT_RULE_KEY_PURPOSE, String(row.webhook_key)),
    afterRotate: (tx) => services.caches.receivingRules.changed(tx),
  })(app, services);

  routeMethods<EventRuleRow>(app, '/api/v2/event_rules/:id/test/', objectPermission('event_rule', { POST: 'test' }), {
    GET: async () => ({}),
    POST: async (request) => {
      const body = validBody(request, TestBody);
      let conditions: Condition[];
      try {
        conditions = body.conditions === undefined || body.conditions === null ? parseConditions(request.object.conditions) : parseConditions(body.conditions);
      } catch (err) {
        if (err instanceof FieldProblem) throw ValidationError.field('conditions', err.message);
        throw err;
      }
      const [results] = await evaluateConditions([{
        conditions, organization: request.object.organization_id, payload: body.payload, headers: conditionHeaders(body.headers ?? {}),
      }]);
      const matched = results.every((r) => r.matched);
      const wouldFire = matched && request.object.enabled === true
        && (await services.db.query(`SELECT 1 FROM event_rules WHERE id = $1 AND (${OUTSIDE_THROTTLE})`, [request.object.id])).length > 0;
      return { matched, condition_results: results, would_fire: wouldFire, actions: request.object.actions };
    },
    OPTIONS: async () => actionOptions('Event Rule Test', 'POST {payload, headers?, conditions?}: evaluates the conditions over the payload and says whether the rule would fire; launches nothing.', { GET: {}, POST: {} }),
  }, {
    GET: { summary: 'What testing an event rule takes' },
    POST: { summary: "Dry run of an event rule's conditions", body: TestBody, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
