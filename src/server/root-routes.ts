import type { FastifyInstance } from 'fastify';
import type { Services } from '../api/context.ts';
import { allResources, getResource } from '../api/resource.ts';
import { serializeRows } from '../api/serialize.ts';
import { loadRow } from '../api/crud.ts';
import { AUTHENTICATED, PUBLIC } from './permissions.ts';
import { PRODUCT_NAME, VERSION } from '../version.ts';

/** /api/, /api/v2/, ping, config and me. */
export function registerRootRoutes(app: FastifyInstance, services: Services, extraTopLevel: Record<string, string>): void {
  app.get('/api/', { config: { permission: PUBLIC } }, async () => ({
    description: `${PRODUCT_NAME} REST API`,
    current_version: '/api/v2/',
    available_versions: { v2: '/api/v2/' },
    oauth2: '/api/o/',
    custom_logo: '',
    custom_login_info: '',
    login_redirect_override: '',
  }));

  app.get('/api/v2/', { config: { permission: PUBLIC } }, async () => {
    const entries: Record<string, string> = {
      ping: '/api/v2/ping/',
      config: '/api/v2/config/',
      me: '/api/v2/me/',
      ...extraTopLevel,
    };
    for (const r of allResources()) entries[r.plural] = r.listPath;
    return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
  });

  app.get('/api/v2/ping/', { config: { permission: PUBLIC } }, async () => {
    const instances = await services.db.query(
      'SELECT hostname AS node, node_type, uuid, last_seen AS heartbeat, capacity, version FROM instances ORDER BY hostname',
    );
    return {
      ha: instances.length > 1,
      version: VERSION,
      active_node: services.env.nodeName,
      install_uuid: services.installUuid,
      instances: instances.map((i) => ({ ...i, heartbeat: i.heartbeat instanceof Date ? i.heartbeat.toISOString() : i.heartbeat })),
      instance_groups: [],
      database: services.db.kind === 'embedded' ? 'embedded' : 'postgresql',
    };
  });

  app.get('/api/v2/config/', { config: { permission: AUTHENTICATED } }, async (request) => ({
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    license_info: { license_type: 'open', valid_key: true, subscription_name: null, product_name: PRODUCT_NAME },
    version: VERSION,
    eula: '',
    analytics_status: 'off',
    analytics_collectors: {},
    become_methods: [
      ['sudo', 'Sudo'], ['su', 'Su'], ['pbrun', 'Pbrun'], ['pfexec', 'Pfexec'], ['dzdo', 'DZDO'], ['pmrun', 'Pmrun'], ['runas', 'Runas'],
      ['enable', 'Enable'], ['doas', 'Doas'], ['ksu', 'Ksu'], ['machinectl', 'Machinectl'], ['sesu', 'Sesu'],
    ],
    ui_next: false,
    project_base_dir: services.env.projectsRoot,
    project_local_paths: [],
    custom_virtualenvs: [],
    node_name: services.env.nodeName,
    node_type: services.env.nodeType,
    user_ldap_fields: ['username', 'first_name', 'last_name', 'email'],
    ...(request.ctx.user?.isSuperuser && { database_kind: services.db.kind }),
  }));

  app.get('/api/v2/me/', { config: { permission: AUTHENTICATED } }, async (request) => {
    const users = getResource('user');
    const row = await loadRow(services.db, users, request.ctx.user!.id);
    return { count: 1, next: null, previous: null, results: await serializeRows(services.db, request.ctx, users, [row]) };
  });
}
