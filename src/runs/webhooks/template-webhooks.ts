/**
 * Webhooks of one template resource, all in one: /webhook_key/ and the receivers of every
 * service, launching through the kind's webhook launcher. Listed in the composition root's
 * ROUTES once per template resource (job templates; workflow job templates likewise).
 */
import type { Resource } from '../../api/resource.ts';
import type { Row } from '../../db/database.ts';
import { webhookKeyRoutes } from '../../resources/webhooks/webhook-key-routes.ts';
import type { Launcher } from '../launch.ts';
import type { WebhookLaunch } from './delivery-launch.ts';
import { webhookReceiverRoutes } from './receiver-routes.ts';
import type { RunRouteModule } from '../run-services.ts';

export const templateWebhooks = <T extends Row>(templates: Resource, launcher: Launcher<WebhookLaunch, T>): RunRouteModule => async (app, services) => {
  await webhookKeyRoutes(templates)(app, services);
  await webhookReceiverRoutes(templates, launcher)(app, services);
};
