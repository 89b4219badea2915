/**
 * GET /<templates>/{id}/webhook_key/ answers the key the webhook service signs with; POST makes a
 * new one (201). Only who may change the template (its admins) reads or rotates it, as AWX. Event
 * rules have the same endpoint with their own key and access action (`KeyStore`).
 */
import { Type } from 'typebox';
import { HIDDEN, recordActivity } from '../../activity/record.ts';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { viewOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import type { Resource } from '../../api/resource.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { ident } from '../../api/sql.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { newStoredWebhookKey, webhookKeyOf } from './webhook-fields.ts';

/** How an object's key is made, read and who may see it. */
export interface KeyStore {
  /** The access action (of the resource's policy) reading and rotating the key needs. */
  action: string;
  newStoredKey(): string;
  keyOf(row: Row): string;
  /** Runs in the rotation's transaction. */
  afterRotate?(tx: Queryable): Promise<void>;
}

const TEMPLATE_KEYS: KeyStore = { action: 'change', newStoredKey: newStoredWebhookKey, keyOf: webhookKeyOf };

const KeyBody = Type.Object({ webhook_key: Type.String({ description: "The shared secret; '' when the object has none." }) });

export const webhookKeyRoutes = (templates: Resource, keys: KeyStore = TEMPLATE_KEYS): RouteModule => (app, services) => {
  const { db } = services;
  routeMethods(app, `${templates.listPath}:id/webhook_key/`, objectPermission(templates.name, { GET: keys.action, POST: keys.action }), {
    GET: async (request) => ({ webhook_key: keys.keyOf(request.object) }),
    POST: async (request, reply) => {
      const stored = keys.newStoredKey();
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE ${ident(templates.table)} SET webhook_key = $2, modified = now() WHERE id = $1`, [request.object.id, stored]);
        await recordActivity(tx, request.ctx, { operation: 'update', object1: templates.name, object1Id: request.object.id, changes: { webhook_key: HIDDEN } });
        await keys.afterRotate?.(tx);
      });
      return reply.code(201).send({ webhook_key: keys.keyOf({ webhook_key: stored }) });
    },
    OPTIONS: async () => viewOptions('Webhook Key', 'GET: the key the webhook service signs its requests with. POST: replaces it with a new one.'),
  }, {
    GET: { summary: `The webhook key of the ${templates.name.replace(/_/g, ' ')}`, response: { 200: KeyBody } },
    POST: { summary: 'Rotate the webhook key', response: { 201: KeyBody } },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
