/** POST /instances/{id}/health_check/: AWX's health check, which here is the node's Ansible runtime check. */
import { Type } from 'typebox';
import { ApiError } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { OPTIONS_RESPONSE } from '../../api/field-schemas.ts';
import { viewOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import type { Row } from '../../db/database.ts';
import { detectAnsibleRuntime } from '../../runtime/ansible-runtime.ts';
import { registerInstance } from './registration.ts';

const HEALTH_FIELDS = ['uuid', 'hostname', 'ip_address', 'version', 'last_health_check', 'errors', 'cpu', 'memory', 'cpu_capacity', 'mem_capacity', 'capacity'];

/** What AWX's InstanceHealthCheckSerializer shows of an instance. */
const healthOf = (row: Row) =>
  Object.fromEntries(HEALTH_FIELDS.map((name) => [name, name === 'memory' && row.memory !== null ? Number(row.memory) : row[name] ?? null]));

export const instanceRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods(app, '/api/v2/instances/:id/health_check/', objectPermission('instance', { GET: 'read_health', POST: 'health_check' }), {
    GET: async (request) => healthOf(request.object),
    POST: async (request) => {
      const instance = request.object;
      if (instance.node_type === 'control') {
        throw new ApiError(400, { error: `Cannot run a health check on instances of type ${instance.node_type}.  Health checks can only be run on execution nodes.` });
      }
      if (instance.hostname === services.env.nodeName) {
        // This node checks itself now: its Ansible runtime, CPU and memory, and the capacity they give.
        await registerInstance(services, await detectAnsibleRuntime());
        return { msg: `Health check is running for ${instance.hostname}.` };
      }
      // Another node records its check with its next heartbeat; until then the check is pending.
      const [started] = await db.query(
        `UPDATE instances SET health_check_started = now() WHERE id = $1
         AND (health_check_started IS NULL OR health_check_started <= COALESCE(last_health_check, '-infinity')) RETURNING 1`,
        [instance.id],
      );
      if (!started) return { msg: `Health check was already in progress for ${instance.hostname}.` };
      return { msg: `Health check is running for ${instance.hostname}.` };
    },
    OPTIONS: async () => viewOptions('Instance Health Check', 'GET: the health of the instance (system administrators and auditors). POST: checks it again (system administrators).'),
  }, {
    GET: { summary: 'The last health check of the instance', response: { 200: Type.Object({}, { additionalProperties: true }) } },
    POST: { summary: 'Run a health check of the instance', description: 'Takes no body.', response: { 200: Type.Object({ msg: Type.String() }) } },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
