/**
 * The cluster-wide metrics, under AWX's names and labels (AWX 24.6.1 awx/main/analytics/metrics.py),
 * plus Drover's queue depth: a new registry for each scrape, filled from what the database holds
 * then (ClusterReadings), so any node answers the same and nodes gone from the database are gone.
 */
import { Gauge, Registry } from 'prom-client';

export interface InstanceReading {
  hostname: string;
  uuid: string;
  node_type: string;
  capacity: number;
  consumed_capacity: number;
  cpu: number;
  /** Bytes, as AWX stores it (its help text says Kb). */
  memory: number;
  enabled: boolean;
  managed_by_policy: boolean;
  version: string;
}

export interface ClusterReadings {
  /** awx_system_info's labels, as AWX gives them (text). */
  system: Record<string, string>;
  license: { instanceCount: number; freeInstances: number };
  counts: {
    organizations: number; users: number; teams: number; inventories: number; projects: number;
    job_templates: number; workflow_job_templates: number; hosts: number; active_hosts: number; schedules: number;
  };
  sessions: { all: number; user: number; anonymous: number };
  databaseConnections: number;
  /** Runs (implicit project syncs left out, as AWX does) by status. */
  statuses: Record<string, number>;
  instances: InstanceReading[];
  /** Runs by the node they executed on, by launch type and by status. */
  byNode: { node: string; launch_type: Record<string, number>; status: Record<string, number> }[];
}

/** AWX's UnifiedJob statuses but `new`, each reported even at zero. */
const STATUSES = ['pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled'];
const INSTANCE_LABELS = ['hostname', 'instance_uuid', 'node_type'];

export function clusterRegistry(readings: ClusterReadings): Registry {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });

  gauge('awx_system_info', 'AWX System Information', Object.keys(readings.system)).set(readings.system, 1);
  const counts = readings.counts;
  gauge('awx_organizations_total', 'Number of organizations').set(counts.organizations);
  gauge('awx_users_total', 'Number of users').set(counts.users);
  gauge('awx_teams_total', 'Number of teams').set(counts.teams);
  gauge('awx_inventories_total', 'Number of inventories').set(counts.inventories);
  gauge('awx_projects_total', 'Number of projects').set(counts.projects);
  gauge('awx_job_templates_total', 'Number of job templates').set(counts.job_templates);
  gauge('awx_workflow_job_templates_total', 'Number of workflow job templates').set(counts.workflow_job_templates);
  const hosts = gauge('awx_hosts_total', 'Number of hosts', ['type']);
  hosts.set({ type: 'all' }, counts.hosts);
  hosts.set({ type: 'active' }, counts.active_hosts);
  gauge('awx_schedules_total', 'Number of schedules').set(counts.schedules);
  const sessions = gauge('awx_sessions_total', 'Number of sessions', ['type']);
  for (const type of ['all', 'user', 'anonymous'] as const) sessions.set({ type }, readings.sessions[type]);

  const statuses = readings.statuses;
  gauge('awx_running_jobs_total', 'Number of running jobs on the system').set((statuses.running ?? 0) + (statuses.waiting ?? 0));
  gauge('awx_pending_jobs_total', 'Number of pending jobs on the system').set(statuses.pending ?? 0);
  const status = gauge('awx_status_total', 'Status of Job launched', ['status']);
  for (const name of STATUSES) status.set({ status: name }, statuses[name] ?? 0);

  const capacity = gauge('awx_instance_capacity', 'Capacity of each node in the system', INSTANCE_LABELS);
  const cpu = gauge('awx_instance_cpu', 'CPU cores on each node in the system', ['hostname', 'instance_uuid']);
  const memory = gauge('awx_instance_memory', 'RAM (Kb) on each node in the system', ['hostname', 'instance_uuid']);
  const info = gauge('awx_instance_info', 'Info about each node in the system', [...INSTANCE_LABELS, 'enabled', 'managed_by_policy', 'version']);
  const launchTypes = gauge('awx_instance_launch_type_total', 'Type of Job launched', ['node', 'launch_type']);
  const nodeStatuses = gauge('awx_instance_status_total', 'Status of Job launched', ['node', 'status']);
  const consumed = gauge('awx_instance_consumed_capacity', 'Consumed capacity of each node in the system', INSTANCE_LABELS);
  const remaining = gauge('awx_instance_remaining_capacity', 'Remaining capacity of each node in the system', INSTANCE_LABELS);
  for (const i of readings.instances) {
    const labels = { hostname: i.hostname, instance_uuid: i.uuid, node_type: i.node_type };
    capacity.set(labels, i.capacity);
    cpu.set({ hostname: i.hostname, instance_uuid: i.uuid }, i.cpu);
    memory.set({ hostname: i.hostname, instance_uuid: i.uuid }, i.memory);
    info.set({ ...labels, enabled: pythonBool(i.enabled), managed_by_policy: pythonBool(i.managed_by_policy), version: i.version }, 1);
    consumed.set(labels, i.consumed_capacity);
    remaining.set(labels, i.capacity - i.consumed_capacity);
  }
  // Runs with no node (never placed) are left out, as AWX leaves out its internal node.
  for (const node of readings.byNode.filter((n) => n.node !== '')) {
    for (const [launchType, value] of Object.entries(node.launch_type)) launchTypes.set({ node: node.node, launch_type: launchType }, value);
    for (const [name, value] of Object.entries(node.status)) nodeStatuses.set({ node: node.node, status: name }, value);
  }

  gauge('awx_license_instance_total', 'Total number of managed hosts provided by your license').set(readings.license.instanceCount);
  gauge('awx_license_instance_free', 'Number of remaining managed hosts provided by your license').set(readings.license.freeInstances);
  gauge('awx_database_connections_total', 'Number of connections to database').set(readings.databaseConnections);

  const queue = gauge('drover_runs_queued', 'Runs waiting to execute, cluster-wide: pending (not yet placed) and waiting (placed on a node, not yet started)', ['status']);
  for (const name of ['pending', 'waiting']) queue.set({ status: name }, statuses[name] ?? 0);
  return registry;
}

/** AWX writes booleans in labels as Python prints them. */
export const pythonBool = (value: boolean): string => (value ? 'True' : 'False');
