/**
 * What the cluster-wide metrics read from the database at scrape time, as AWX 24.6.1's collectors
 * count them (awx/main/analytics/collectors.py: counts, job_counts, job_instance_counts,
 * instance_info). Implicit project syncs (launch type `sync`) are left out of the run counts, as AWX does.
 */
import type { Services } from '../api/context.ts';
import { loadByHostname } from '../resources/instances/capacity.ts';
import type { ClusterReadings, InstanceReading } from '../telemetry/metrics-cluster.ts';
import { pythonBool } from '../telemetry/metrics-cluster.ts';

type Counts = ClusterReadings['counts'] & { sessions: number };

const COUNTS = `SELECT
  (SELECT count(*) FROM organizations)::int AS organizations,
  (SELECT count(*) FROM users)::int AS users,
  (SELECT count(*) FROM teams)::int AS teams,
  (SELECT count(*) FROM inventories)::int AS inventories,
  (SELECT count(*) FROM projects)::int AS projects,
  (SELECT count(*) FROM job_templates)::int AS job_templates,
  (SELECT count(*) FROM workflow_job_templates)::int AS workflow_job_templates,
  (SELECT count(*) FROM hosts)::int AS hosts,
  -- AWX's active host count: distinct names, leaving out hosts sourced from another controller.
  (SELECT count(DISTINCT lower(h.name)) FROM hosts h WHERE NOT EXISTS (
     SELECT 1 FROM host_inventory_sources hs JOIN inventory_sources s ON s.id = hs.inventory_source_id
     WHERE hs.host_id = h.id AND s.source = 'controller'))::int AS active_hosts,
  (SELECT count(*) FROM schedules)::int AS schedules,
  (SELECT count(*) FROM sessions WHERE expires >= now())::int AS sessions`;

const RUNS_BY_NODE = `SELECT execution_node AS node, launch_type, status, count(*)::int AS n
  FROM unified_jobs WHERE launch_type <> 'sync' GROUP BY execution_node, launch_type, status`;

const INSTANCES = `SELECT hostname, uuid, node_type, capacity::int AS capacity, cpu::float8 AS cpu, memory::float8 AS memory,
  enabled, managed_by_policy, version FROM instances ORDER BY hostname`;

/** Every server connection to this database, from all nodes; the embedded database is one connection, as AWX counts a database other than PostgreSQL. */
async function databaseConnections(services: Services): Promise<number> {
  if (services.db.kind === 'embedded') return 1;
  const [row] = await services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()');
  return row.n;
}

export async function readCluster(services: Services): Promise<ClusterReadings> {
  const { db, settings } = services;
  const [[counts], runs, instances, connections] = await Promise.all([
    db.query<Counts>(COUNTS),
    db.query<{ node: string; launch_type: string; status: string; n: number }>(RUNS_BY_NODE),
    db.query<Omit<InstanceReading, 'consumed_capacity'>>(INSTANCES),
    databaseConnections(services),
  ]);
  const loads = await loadByHostname(db, instances.map((i) => i.hostname));

  const statuses: Record<string, number> = {};
  const byNode = new Map<string, { node: string; launch_type: Record<string, number>; status: Record<string, number> }>();
  for (const run of runs) {
    statuses[run.status] = (statuses[run.status] ?? 0) + run.n;
    const node = byNode.get(run.node) ?? { node: run.node, launch_type: {}, status: {} };
    node.launch_type[run.launch_type] = (node.launch_type[run.launch_type] ?? 0) + run.n;
    node.status[run.status] = (node.status[run.status] ?? 0) + run.n;
    byNode.set(run.node, node);
  }

  const { sessions, ...objectCounts } = counts;
  const loggerType = settings.get<string | null>('LOG_AGGREGATOR_TYPE');
  return {
    system: {
      install_uuid: services.installUuid,
      insights_analytics: pythonBool(settings.get<boolean>('INSIGHTS_TRACKING_STATE') === true),
      tower_url_base: settings.get<string>('SVC_URL_BASE') ?? '',
      tower_version: services.version,
      // Drover has no subscriptions: AWX's open license, which never expires and counts no hosts.
      license_type: 'open',
      license_expiry: '0',
      pendo_tracking: String(settings.get<string>('PENDO_TRACKING_STATE') ?? 'off'),
      external_logger_enabled: pythonBool(settings.get<boolean>('LOG_AGGREGATOR_ENABLED') === true),
      external_logger_type: loggerType ? String(loggerType) : 'None',
    },
    license: { instanceCount: 0, freeInstances: 0 },
    counts: objectCounts,
    // Drover keeps sessions of signed-in users only.
    sessions: { all: sessions, user: sessions, anonymous: 0 },
    databaseConnections: connections,
    statuses,
    instances: instances.map((i) => ({ ...i, consumed_capacity: loads.get(i.hostname)?.consumed_capacity ?? 0 })),
    byNode: [...byNode.values()],
  };
}
