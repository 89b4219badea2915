/**
 * GET /api/v2/bulk/ and the bulk host endpoints (AWX's BulkView, BulkHostCreateView,
 * BulkHostDeleteView): any signed-in user may call them; what they may do is checked per inventory.
 * POST /api/v2/bulk/job_launch/ launches runs, so it lives with workflow jobs
 * (src/run-kinds/workflow-job/bulk-launch-routes.ts).
 */
import { AnyObject, OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { integer, json } from '../../api/fields.ts';
import { actionOptions, viewOptions } from '../../api/options.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { createHosts, deleteHosts, readHostCreate, readHostDelete } from './bulk-hosts.ts';

export const BULK_URL = '/api/v2/bulk/';

const HOST_CREATE_FIELDS = {
  GET: {},
  POST: {
    inventory: integer({ required: true, helpText: 'Primary Key ID of inventory to add hosts to.' }),
    hosts: json({ required: true, helpText: 'List of hosts to be created, JSON. e.g. [{"name": "example.com"}, {"name": "127.0.0.1"}]' }),
  },
};
const HOST_DELETE_FIELDS = { GET: {}, POST: { hosts: json({ required: true, helpText: 'List of hosts ids to be deleted, e.g. [105, 130, 131, 200]' }) } };

export const bulkRoutes: RouteModule = (app, services) => {
  routeMethods(app, BULK_URL, AUTHENTICATED, {
    GET: async () => ({ host_create: `${BULK_URL}host_create/`, host_delete: `${BULK_URL}host_delete/`, job_launch: `${BULK_URL}job_launch/` }),
    OPTIONS: async () => viewOptions('Bulk', 'The bulk endpoints: many hosts created or deleted, many jobs launched, in one request.'),
  }, { GET: { summary: 'The bulk endpoints' }, OPTIONS: OPTIONS_RESPONSE });

  routeMethods(app, `${BULK_URL}host_create/`, AUTHENTICATED, {
    GET: async () => ({ detail: 'Bulk create hosts with this endpoint' }),
    POST: async (request, reply) => {
      const { inventoryId, hosts } = readHostCreate(validBody(request, AnyObject));
      const created = await services.db.transaction((tx) => createHosts(tx, request.ctx, inventoryId, hosts));
      return reply.code(201).send(created);
    },
    OPTIONS: async () => actionOptions('Bulk Host Create', 'Creates many hosts of one inventory in one transaction.', HOST_CREATE_FIELDS),
  }, {
    GET: { summary: 'What bulk host creation takes' },
    POST: { summary: 'Create many hosts of one inventory', body: AnyObject, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });

  routeMethods(app, `${BULK_URL}host_delete/`, AUTHENTICATED, {
    GET: async () => ({ detail: 'Bulk delete hosts with this endpoint' }),
    POST: async (request, reply) => {
      const body = validBody(request, AnyObject);
      const ids = readHostDelete(body);
      const count = (body.hosts as unknown[]).length;
      const deleted = await services.db.transaction((tx) => deleteHosts(tx, request.ctx, ids, count));
      return reply.code(201).send(deleted);
    },
    OPTIONS: async () => actionOptions('Bulk Host Delete', 'Deletes many hosts in one transaction.', HOST_DELETE_FIELDS),
  }, {
    GET: { summary: 'What bulk host deletion takes' },
    POST: { summary: 'Delete many hosts', body: AnyObject, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
