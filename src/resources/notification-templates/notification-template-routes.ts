/** Endpoints of notification templates beyond the conventional ones: copy/ and test/. */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { registerCopyRoute } from '../../api/copy-route.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { viewOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { allows } from '../../api/route-objects.ts';
import { serializeRow } from '../../api/serialize.ts';
import { clearConfiguration, type Configuration } from './configuration.ts';
import { notifications } from './notification.resource.ts';
import { notificationTemplates } from './notification-template.resource.ts';
import { queueTemplateNotification } from './queue.ts';
import type { NotificationRow, NotificationTemplateRow } from '../../db/tables.ts';

export const notificationTemplateRoutes: RouteModule = (app, services) => {
  const { db } = services;
  // The copy keeps the secrets: they are decrypted here and encrypted again for the copy.
  registerCopyRoute(app, services, notificationTemplates, {
    values: (original, values) => ({ ...values, notification_configuration: clearConfiguration(original.notification_configuration as Configuration) }),
  });

  // As AWX: the test is sent in the background; the answer (202) names the notification to watch.
  routeMethods<NotificationTemplateRow>(app, `${notificationTemplates.listPath}:id/test/`, objectPermission('notification_template', { POST: 'test' }), {
    GET: async (request) => ({ can_test: await allows(notificationTemplates, 'test', request.ctx, db, request.object) }),
    POST: async (request, reply) => {
      const id = await db.transaction((tx) => queueTemplateNotification(tx, request.object.id, 'test'));
      const [row] = await db.query<NotificationRow>('SELECT * FROM notifications WHERE id = $1', [id]);
      const shown = await serializeRow(db, request.ctx, notifications, row);
      return reply.code(202).header('Location', notifications.detailPath(id)).send({ notification: id, ...shown });
    },
    OPTIONS: async () => viewOptions('Notification Template Test', 'POST: sends a test notification from the template.'),
  }, {
    GET: { summary: 'Whether the caller may send a test notification', response: { 200: Type.Object({ can_test: Type.Boolean() }) } },
    POST: {
      summary: 'Send a test notification',
      description: 'Takes no body.',
      response: { 202: Type.Object({ notification: Type.Integer() }, { additionalProperties: true }) },
    },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
