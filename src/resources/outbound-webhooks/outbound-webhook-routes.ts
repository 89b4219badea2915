/**
 * POST /outbound_webhooks/{id}/test/ (docs/outbound-webhooks.md#test): sends event_type `test` with a sample
 * job now and answers how it went, `{status, ok, error}`. It is recorded on the webhook and in its
 * deliveries as any attempt is; a URL the guard refuses is an answer too (ok false), not an error.
 */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { actionOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { outboundPolicy } from '../../net/outbound.ts';
import { deliveryBody } from './events.ts';
import { attemptDelivery, recordAttempt } from './send.ts';

const TestAnswer = Type.Object({
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status the URL answered; null when it did not answer.' }),
  ok: Type.Boolean({ description: 'Whether the answer was a 2xx.' }),
  error: Type.String({ description: 'What went wrong; empty when ok.' }),
});

export const outboundWebhookRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods(app, '/api/v2/outbound_webhooks/:id/test/', objectPermission('outbound_webhook', { POST: 'test' }), {
    GET: async () => ({}),
    POST: async (request) => {
      const webhook = request.object;
      const now = new Date().toISOString();
      const payload = {
        event_type: 'test',
        timestamp: now,
        job: { id: 0, name: 'Test delivery', status: 'successful', type: 'job', started: now, finished: now, elapsed: 0, launch_type: 'manual', execution_node: services.env.nodeName },
      };
      const attempt = await attemptDelivery(webhook, deliveryBody(payload), outboundPolicy(services.settings));
      await db.transaction(async (tx) => {
        await recordAttempt(tx, webhook.id, attempt);
        await tx.query(
          `INSERT INTO outbound_webhook_deliveries (webhook_id, event_type, payload, status, attempts, response_status, error, sent_at)
           VALUES ($1, 'test', $2::jsonb, $3::text, 1, $4, $5, CASE WHEN $3::text = 'sent' THEN now() END)`,
          [webhook.id, JSON.stringify(payload), attempt.ok ? 'sent' : 'failed', attempt.status, attempt.error],
        );
      });
      return { status: attempt.status, ok: attempt.ok, error: attempt.error };
    },
    OPTIONS: async () => actionOptions('Outbound Webhook Test', 'POST (no body): sends event_type test with a sample job now and answers {status, ok, error}.', { GET: {}, POST: {} }),
  }, {
    GET: { summary: 'What testing an outbound webhook takes' },
    POST: { summary: 'Send a test delivery to an outbound webhook', response: { 200: TestAnswer } },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
