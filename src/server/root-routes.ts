import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { Services } from '../api/context.ts';
import { AUTHENTICATED, PUBLIC, type RoutePermission } from '../api/permissions.ts';
import { routeMethods, type RouteSettings } from '../api/resource-routes.ts';
import { meObject } from '../auth/me.ts';
import { viewOptions } from '../api/options.ts';
import { PRODUCT_NAME, VERSION } from '../version.ts';
import { ensureCsrfCookie } from '../auth/sessions.ts';
import { OPENAPI_URL } from './openapi.ts';
import { nodeAnsibleRuntime } from '../runtime/ansible-runtime.ts';
import { configFor } from './config-view.ts';
import { pingReading } from './ping-reading.ts';
import { METRICS_URL, registerMetricsView } from './metrics-view.ts';

/** A read-only endpoint: GET, OPTIONS describing it, 405 with Allow for anything else. */
function view(
  app: FastifyInstance,
  url: string,
  permission: RoutePermission,
  name: string,
  description: string,
  get: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  answer?: TSchema,
  settings: RouteSettings = {},
) {
  routeMethods(app, url, permission, { GET: get, OPTIONS: async () => viewOptions(name, description) }, answer ? { GET: { summary: name, response: { 200: answer } } } : {}, settings);
}

/** What a session that must still pass its second factor may read here (docs/webauthn.md). */
const BEFORE_SECOND_FACTOR: RouteSettings = { secondFactorExempt: true };

/** What the console reads of /api/v2/config/; the other keys (AWX's) pass through as they are. */
const ConfigAnswer = Type.Object(
  {
    version: Type.String(),
    project_base_dir: Type.Optional(Type.String({ description: 'The directory manual projects live under (superusers only).' })),
    project_local_paths: Type.Optional(Type.Array(Type.String(), { description: "Directories under project_base_dir no project uses yet: a manual project's choices of local_path (superusers only)." })),
  },
  { additionalProperties: true },
);

/** /api/, /api/v2/, ping, config, me and metrics. */
export function registerRootRoutes(app: FastifyInstance, services: Services, extraTopLevel: Record<string, string>): void {
  // Sets the csrftoken cookie, as AWX's API root does (the awx CLI reads it from here before it logs in).
  view(app, '/api/', PUBLIC, 'API Root', 'The entry point: available versions.', async (request, reply) => {
    ensureCsrfCookie(services, request, reply);
    return {
      description: `${PRODUCT_NAME} REST API`,
      current_version: '/api/v2/',
      available_versions: { v2: '/api/v2/' },
      oauth2: '/api/o/',
      custom_logo: services.settings.get('CUSTOM_LOGO'),
      custom_login_info: services.settings.get('CUSTOM_LOGIN_INFO'),
      login_redirect_override: '',
    };
  });

  // AWX's clients (awxkit) look resources up by these keys, which differ from the URL segment here and there
  // (and a key is one word: the WebAuthn credentials live under /webauthn/).
  const ROOT_KEYS: Record<string, string> = { inventories: 'inventory', 'webauthn/credentials': 'webauthn_credentials' };
  view(app, '/api/v2/', PUBLIC, 'Version 2', 'Every top-level resource of version 2.', async () => {
    const entries: Record<string, string> = {
      ping: '/api/v2/ping/',
      config: '/api/v2/config/',
      me: '/api/v2/me/',
      metrics: METRICS_URL,
      ...extraTopLevel,
    };
    for (const r of services.resources.all) if (r.topLevel) entries[ROOT_KEYS[r.plural] ?? r.plural] = r.listPath;
    return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
  });

  const ping = pingReading(async () => {
    const [instances, groups, runtime] = await Promise.all([
      services.db.query('SELECT hostname AS node, node_type, uuid, last_seen AS heartbeat, capacity, version, errors FROM instances ORDER BY hostname'),
      services.db.query<{ name: string; capacity: number; instances: string[] }>(
        `SELECT g.name, coalesce(sum(i.capacity), 0)::int AS capacity, coalesce(array_agg(i.hostname ORDER BY i.hostname) FILTER (WHERE i.id IS NOT NULL), '{}') AS instances
         FROM instance_groups g LEFT JOIN instance_group_instances m ON m.instance_group_id = g.id LEFT JOIN instances i ON i.id = m.instance_id
         GROUP BY g.id, g.name ORDER BY g.name`,
      ),
      nodeAnsibleRuntime(),
    ]);
    return {
      ha: instances.length > 1,
      version: VERSION,
      active_node: services.env.nodeName,
      install_uuid: services.installUuid,
      instances: instances.map((i) => ({ ...i, heartbeat: i.heartbeat instanceof Date ? i.heartbeat.toISOString() : i.heartbeat })),
      instance_groups: groups,
      ansible_runtime: runtime,
      database: services.db.kind === 'embedded' ? 'embedded' : 'postgresql',
    };
  });
  view(app, '/api/v2/ping/', PUBLIC, 'Ping', 'Health check: version, cluster instances, instance groups and the Ansible runtime; needs no authentication.', () => ping.read());

  view(app, '/api/v2/config/', AUTHENTICATED, 'Configuration', 'Version, license and general settings of this installation.', async (request) =>
    configFor(services, request.ctx),
  ConfigAnswer, BEFORE_SECOND_FACTOR);

  view(app, '/api/v2/me/', AUTHENTICATED, 'Me', 'The current user, with where the session stands with the second factor.', async (request) => ({
    count: 1, next: null, previous: null, results: [await meObject(services, request.ctx)],
  }), undefined, BEFORE_SECOND_FACTOR);

  registerMetricsView(app, services);

  // The document holds no data, only the shape of every endpoint; anonymous callers reach only the entry points.
  view(app, OPENAPI_URL, AUTHENTICATED, 'OpenAPI', 'The OpenAPI 3 document of this API, made from the route schemas.', async () => app.swagger());
}
