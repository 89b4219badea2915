import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { loadRow, updateObject } from '../../api/crud.ts';
import { ValidationError } from '../../api/errors.ts';
import { viewOptions } from '../../api/options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import type { Resource } from '../../api/resource.ts';
import { objectPermission } from '../../api/permissions.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import type { GroupRow, HostRow, InventoryRow } from '../../db/tables.ts';
import { pythonJson } from '../../api/python-json.ts';

/** What has variables: an inventory, a host or a group. */
type VariablesRow = InventoryRow | HostRow | GroupRow;

const Variables = Type.Object({}, { additionalProperties: true, description: 'The variables, as a mapping.' });
const replaceVariables: MethodSchema = { summary: 'Replace the variables', body: Variables, response: { 200: Variables } };
const variableDataSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The variables', response: { 200: Variables } },
  PUT: replaceVariables,
  PATCH: replaceVariables,
  OPTIONS: OPTIONS_RESPONSE,
};

/**
 * /<resources>/{id}/variable_data/ of inventories, hosts and groups (as AWX): GET answers the
 * variables as a mapping; PUT and PATCH replace them all with the mapping sent (stored as JSON).
 */
export function registerVariableDataRoutes(app: FastifyInstance, services: Services, resource: Resource): void {
  const { db } = services;
  const label = `${resource.label.replace(/ List$/, '')} Variable Data`;
  const replace = async (request: FastifyRequest) => {
    const existing = request.object;
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.field('variables', 'Must be valid JSON or YAML.');
    const row = await db.transaction(async (tx) =>
      updateObject<VariablesRow>(tx, request.ctx, resource, await loadRow<VariablesRow>(tx, resource, existing.id, true), { variables: pythonJson(body) }),
    );
    return parseVariables(row.variables);
  };
  routeMethods<VariablesRow>(app, `${resource.listPath}:id/variable_data/`, objectPermission(resource.name, { PUT: 'change', PATCH: 'change' }), {
    GET: async (request) => parseVariables(request.object.variables),
    PUT: replace,
    PATCH: replace,
    OPTIONS: async () => viewOptions(label, `The variables of the ${resource.name} as a mapping; PUT or PATCH a mapping to replace them.`),
  }, variableDataSchemas);
}
