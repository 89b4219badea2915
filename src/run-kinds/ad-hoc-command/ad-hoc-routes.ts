import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../api/context.ts';
import { parseRequestBody } from '../../api/crud.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { adHocLauncher } from './ad-hoc-command.resource.ts';
import { ApiError } from '../../api/errors.ts';
import { listOptions, passwordsOptions } from '../../api/options.ts';
import { listPage, type Query, type Scope } from '../../api/list.ts';
import { type Resource, type Values } from '../../api/resource.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import type { Row } from '../../db/database.ts';
import type { AdHocCommandRow, UnifiedJobRow } from '../../db/tables.ts';
import { GROUP_ALL_HOSTS } from '../../inventory/group-graph.ts';
import { objectPermission } from '../../api/permissions.ts';
import { LAUNCH_PASSWORDS } from './checks.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';
import { AdHocRelaunchBody, adHocRelaunchSchemas, parentCommandSchemas } from './ad-hoc-schemas.ts';
import { checkedBody, validBody } from '../../api/route-schemas.ts';
import type { Static } from 'typebox';
import type { RunServices, RunRouteModule } from '../../runs/run-services.ts';

/** Where a command can be started from besides /ad_hoc_commands/: what the parent fixes, and which commands it lists. */
interface Parent {
  resource: string;
  fixed(row: Row): Values;
  scope(row: Row): Scope;
}

/** Commands of the parent's inventory aimed at it by name, or that reported on one of `hosts`. */
const aimedAt = (row: Row, hosts: (hostParam: string) => string): Scope => (alias, params) => {
  const inventory = params.add(row.inventory_id);
  const name = params.add(row.name);
  return `(${alias}.inventory_id = ${inventory} AND (${alias}."limit" = ${name}
    OR EXISTS (SELECT 1 FROM unified_job_events e WHERE e.unified_job_id = ${alias}.id AND e.host_id IN (${hosts(params.add(row.id))}))))`;
};

const PARENTS: Parent[] = [
  { resource: 'inventory', fixed: (row) => ({ inventory: row.id }), scope: (row) => (alias, params) => `${alias}.inventory_id = ${params.add(row.id)}` },
  // As AWX: a command started from a host or a group runs on the parent's inventory, limited to it.
  { resource: 'host', fixed: (row) => ({ inventory: row.inventory_id, limit: row.name }), scope: (row) => aimedAt(row, (id) => id) },
  {
    resource: 'group',
    fixed: (row) => ({ inventory: row.inventory_id, limit: row.name }),
    scope: (row) => aimedAt(row, (id) => `SELECT group_all_host.host_id FROM ${GROUP_ALL_HOSTS} WHERE all_hosts_group.id = ${id}`),
  },
];

const launchCommand = async (services: RunServices, ctx: RequestContext, values: Values): Promise<UnifiedJobRow> =>
  (await launchOrRefuse(services.launches, ctx, adHocLauncher, null, values)).run;

/** Creates a command from a request body (with what the URL fixes) and answers 201 with it. */
async function startCommand(services: RunServices, request: FastifyRequest, reply: FastifyReply, commands: Resource, fixed: Values) {
  const { db } = services;
  const { body, refused } = checkedBody(request);
  const values = await parseRequestBody(commands, { ...body, ...fixed }, 'create', null, (v) => commands.access.canCreate(request.ctx, db, { ...v, ...fixed }), refused);
  const row = await launchCommand(services, request.ctx, values);
  return reply.code(201).send(await serializeRow(db, request.ctx, commands, row));
}

/** The values a relaunch copies (AWX's AdHocCommand.copy). */
const copiedValues = (row: AdHocCommandRow): Values => ({
  job_type: row.job_type,
  inventory: row.inventory_id,
  limit: row.limit,
  credential: row.credential_id,
  module_name: row.module_name,
  module_args: row.module_args,
  forks: row.forks,
  verbosity: row.verbosity,
  extra_vars: row.extra_vars,
  become_enabled: row.become_enabled,
  diff_mode: row.diff_mode,
  execution_environment: row.execution_environment_id,
});

/** The launch passwords a relaunch request gives (the original command's are not kept for it). */
function givenPasswords(body: Static<typeof AdHocRelaunchBody>): Values {
  return Object.fromEntries(LAUNCH_PASSWORDS.filter((name) => typeof body[name] === 'string').map((name) => [name, body[name]]));
}

export const adHocRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  const commands = services.resources.get('ad_hoc_command');

  for (const parent of PARENTS) {
    const parentResource = services.resources.get(parent.resource);
    routeMethods(app, `${parentResource.listPath}:id/ad_hoc_commands/`, objectPermission(parent.resource, { POST: 'edit' }), {
      GET: async (request) => {
        return listPage(db, request.ctx, commands, request.url.split('?')[0], request.query as Query, parent.scope(request.object));
      },
      POST: async (request, reply) => startCommand(services, request, reply, commands, parent.fixed(request.object)),
      OPTIONS: async (request) => {
        const canAdd = request.ctx.tokenScope !== 'read' && (await commands.access.canCreate(request.ctx, db, parent.fixed(request.object)));
        return listOptions(services.resources, commands, canAdd);
      },
    }, parentCommandSchemas(commands, parent.resource === 'inventory' ? ['inventory'] : ['inventory', 'limit']));
  }

  routeMethods(app, `${commands.listPath}:id/relaunch/`, objectPermission(commands.name, { GET: 'relaunch', POST: 'relaunch' }), {
    GET: async (request) => {
      const row = request.object as AdHocCommandRow;
      return { passwords_needed_to_start: await passwordsNeededFor(db, row.credential_id ? [row.credential_id] : []) };
    },
    POST: async (request, reply) => {
      const row = request.object as AdHocCommandRow;
      if (!row.inventory_id) throw new ApiError(400, { inventory: ['No valid inventory.'] });
      const created = await launchCommand(services, request.ctx, { ...copiedValues(row), ...givenPasswords(validBody(request, AdHocRelaunchBody)), launch_type: 'relaunch' });
      const body = await serializeRow(db, request.ctx, commands, created);
      return reply.code(201).header('Location', commands.detailPath(created.id)).send({ ...body, ad_hoc_command: created.id });
    },
    OPTIONS: async () => passwordsOptions('Ad Hoc Command Relaunch', 'GET: the passwords a relaunch needs. POST: runs a new command with the same values (201).'),
  }, adHocRelaunchSchemas);
};
