/**
 * Which list a reference field picks from. OPTIONS says a field is an id, not of what; AWX names
 * reference fields after the resource, so the name tells.
 */
const REFERENCES: Record<string, string> = {
  organization: 'organizations',
  default_environment: 'execution_environments',
  execution_environment: 'execution_environments',
  inventory: 'inventories',
  project: 'projects',
  source_project: 'projects',
  credential: 'credentials',
  webhook_credential: 'credentials',
  signing_credential: 'credentials',
  credential_type: 'credential_types',
  job_template: 'job_templates',
  workflow_job_template: 'workflow_job_templates',
  unified_job_template: 'unified_job_templates',
  notification_template: 'notification_templates',
  host: 'hosts',
  group: 'groups',
  user: 'users',
  team: 'teams',
  instance_group: 'instance_groups',
  application: 'applications',
  inventory_source: 'inventory_sources',
  system_job_template: 'system_job_templates',
  job: 'jobs',
  alert_rule: 'drift_alert_rules',
  event_rule: 'event_rules',
  snapshot_before: 'fact_snapshots',
  snapshot_after: 'fact_snapshots',
};

export const referencedResource = (field: string): string | undefined => REFERENCES[field];
