import { Link } from 'react-router';
import { defineResource, listOf, type ResourceConfig, type ResourceDefinition } from './types';
import type { RunKey } from '../pages/runs/run-kinds';
import type { FieldOf } from '../api/types';
import { StatusLabel, dateColumn, formatDate, modifiedColumn, nameColumn, refColumn, runNameColumn, statusColumn } from '../components/cells';
import { templatePath } from './run-paths';
import { RUN_TYPE_LABELS } from '../pages/runs/run-types';
import { RunRowDetails, launchedByColumn, runFilters, runTypeColumn } from '../pages/runs/run-list';
import { CapacityCell } from '../components/CapacityCell';
import { SummaryTemplate } from '../components/SummaryTemplate';
import { ActivityObjects } from '../components/ActivityObjects';
import HostEnabledSwitch from '../pages/inventories/HostEnabledSwitch';
import { CapacityAdjustment } from '../pages/instances/CapacityAdjustment';
import { InstanceEnabledSwitch } from '../pages/instances/InstanceEnabledSwitch';
import {
  acknowledgedColumn,
  alertCreatedColumn,
  detectedColumn,
  factPathColumn,
  notificationStatusColumn,
  ruleCategoriesColumn,
  ruleThresholdColumn,
  severityColumn,
} from '../pages/drift/drift-cells';
import {
  enabledColumn,
  fireCountColumn,
  logEventTypeColumn,
  logGuidColumn,
  logReceivedColumn,
  logRuleColumn,
  logSourceIpColumn,
  logStatusColumn,
  sourceTypeColumn,
} from '../pages/event-rules/event-cells';
import { lastStatusColumn } from '../pages/outbound-webhooks/webhook-cells';
import {
  decisionColumn,
  decisionCreatedColumn,
  decisionMessageColumn,
  decisionPolicyColumn,
  decisionResourceColumn,
  enforcementColumn,
  syncColumn,
  triggerColumn,
} from '../pages/policies/policy-cells';
import { requestColumns } from '../pages/portal/request-lists';
import { catalogItemColumns } from '../pages/portal/catalog-item-cells';
import { quotaEventColumns, tenantColumns } from '../pages/tenants/tenant-cells';

/** A list of runs: relaunch and cancel per row, cancel and delete of the selected, rows that expand. */
const runs = <K extends RunKey>(key: K, label: string, singular: string, extra: Partial<ResourceDefinition<K>> = {}): ResourceConfig =>
  defineResource<K>({
  key,
  label,
  singular,
  creatable: false,
  columns: [runNameColumn, statusColumn, launchedByColumn, dateColumn('started', 'Started'), dateColumn('finished', 'Finished')],
  detailPage: () => import('../pages/runs/RunPage'),
  actions: () => import('../pages/runs/RunRowActions'),
  bulkActions: () => import('../pages/runs/RunBulkActions'),
  filters: runFilters(key),
  expandedRow: (run) => <RunRowDetails run={run} />,
  ...extra,
  });

const SCM_TYPES: Record<FieldOf<'projects', 'scm_type'>, string> = { '': 'Manual', git: 'Git' };
const INVENTORY_KINDS: Record<FieldOf<'inventories', 'kind'>, string> = { '': 'Inventory', smart: 'Smart' };

const RESOURCES: ResourceConfig[] = [
  defineResource({
    key: 'organizations',
    label: 'Organizations',
    singular: 'Organization',
    columns: [nameColumn('organizations'), { field: 'description', label: 'Description', wide: true }, modifiedColumn],
    tabs: [
      { key: 'users', label: 'Users', related: 'users', resource: 'users' },
      { key: 'teams', label: 'Teams', related: 'teams', resource: 'teams' },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  }),
  defineResource({
    key: 'users',
    label: 'Users',
    singular: 'User',
    columns: [
      { field: 'username', label: 'Username', sort: true, render: (o) => <Link to={`/users/${o.id}`}>{String(o.username)}</Link> },
      { field: 'first_name', label: 'First name', sort: true, wide: true },
      { field: 'last_name', label: 'Last name', sort: true, wide: true },
      { field: 'email', label: 'Email', sort: true, wide: true },
    ],
    tabs: [
      { key: 'organizations', label: 'Organizations', component: () => import('../pages/users/UserOrganizations') },
      { key: 'teams', label: 'Teams', related: 'teams', resource: 'teams' },
      { key: 'roles', label: 'Roles', component: () => import('../pages/roles/PrincipalRoles') },
      { key: 'tokens', label: 'Tokens', component: () => import('../pages/users/UserTokens') },
    ],
  }),
  defineResource({
    key: 'teams',
    label: 'Teams',
    singular: 'Team',
    columns: [nameColumn('teams'), refColumn('organization', 'Organization', 'organizations'), modifiedColumn],
    tabs: [
      { key: 'users', label: 'Members', related: 'users', resource: 'users' },
      { key: 'roles', label: 'Roles', component: () => import('../pages/roles/PrincipalRoles') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  }),
  defineResource({
    key: 'credentials',
    label: 'Credentials',
    singular: 'Credential',
    columns: [nameColumn('credentials'), refColumn('credential_type', 'Type', 'credential_types'), refColumn('organization', 'Organization', 'organizations'), modifiedColumn],
    formPage: () => import('../pages/credentials/CredentialForm'),
    tabs: [{ key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') }],
  }),
  defineResource({
    key: 'credential_types',
    label: 'Credential types',
    singular: 'Credential type',
    columns: [nameColumn('credential_types'), { field: 'kind', label: 'Kind', sort: true }, { field: 'managed', label: 'Managed', render: (o) => (o.managed ? 'Yes' : 'No') }],
  }),
  defineResource({
    key: 'projects',
    label: 'Projects',
    singular: 'Project',
    columns: [
      nameColumn('projects'),
      statusColumn,
      { field: 'scm_type', label: 'Type', sort: true, wide: true, render: (o) => SCM_TYPES[o.scm_type] },
      { field: 'scm_revision', label: 'Revision', wide: true, render: (o) => <span className="drover-mono">{String(o.scm_revision ?? '').slice(0, 8) || '–'}</span> },
      refColumn('organization', 'Organization', 'organizations'),
    ],
    formPage: () => import('../pages/projects/ProjectForm'),
    actions: () => import('../pages/projects/ProjectActions'),
    tabs: [
      { key: 'playbooks', label: 'Playbooks', component: () => import('../pages/projects/Playbooks') },
      { key: 'project_updates', label: 'Syncs', related: 'project_updates', resource: 'project_updates' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  }),
  defineResource({
    key: 'inventories',
    label: 'Inventories',
    singular: 'Inventory',
    columns: [
      nameColumn('inventories'),
      { field: 'kind', label: 'Kind', render: (o) => INVENTORY_KINDS[o.kind] },
      { field: 'total_hosts', label: 'Hosts', wide: true },
      { field: 'hosts_with_active_failures', label: 'Failed hosts', wide: true },
      refColumn('organization', 'Organization', 'organizations'),
    ],
    actions: () => import('../pages/inventories/RunCommandAction'),
    tabs: [
      { key: 'hosts', label: 'Hosts', related: 'hosts', resource: 'hosts' },
      { key: 'groups', label: 'Groups', component: () => import('../pages/inventories/GroupTree') },
      { key: 'inventory_sources', label: 'Sources', related: 'inventory_sources', resource: 'inventory_sources' },
      { key: 'jobs', label: 'Jobs', component: () => import('../pages/inventories/InventoryJobs') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  }),
  defineResource({
    key: 'hosts',
    label: 'Hosts',
    singular: 'Host',
    columns: [
      nameColumn('hosts'),
      refColumn('inventory', 'Inventory', 'inventories'),
      { field: 'enabled', label: 'Enabled', render: (o) => <HostEnabledSwitch host={o} /> },
      { field: 'has_active_failures', label: 'Failures', wide: true, render: (o) => (o.has_active_failures ? <StatusLabel status="failed" /> : '–') },
    ],
    actions: () => import('../pages/inventories/HostActions'),
    bulkActions: () => import('../pages/inventories/RunCommandOnHosts'),
    tabs: [
      { key: 'facts', label: 'Facts', component: () => import('../pages/inventories/HostFacts') },
      { key: 'groups', label: 'Groups', related: 'groups', resource: 'groups' },
      { key: 'job_host_summaries', label: 'Jobs', component: () => import('../pages/inventories/HostJobs') },
      { key: 'drift', label: 'Drift', component: () => import('../pages/drift/HostDrift') },
    ],
  }),
  defineResource({
    key: 'groups',
    label: 'Groups',
    singular: 'Group',
    columns: [nameColumn('groups'), refColumn('inventory', 'Inventory', 'inventories'), modifiedColumn],
    tabs: [
      { key: 'hosts', label: 'Hosts', related: 'hosts', resource: 'hosts' },
      { key: 'children', label: 'Child groups', related: 'children', resource: 'groups' },
    ],
  }),
  defineResource({
    key: 'inventory_sources',
    label: 'Inventory sources',
    singular: 'Inventory source',
    columns: [nameColumn('inventory_sources'), statusColumn, { field: 'source', label: 'Source', sort: true }, refColumn('inventory', 'Inventory', 'inventories')],
    actions: () => import('../pages/inventories/SourceActions'),
    tabs: [
      { key: 'inventory_updates', label: 'Syncs', related: 'inventory_updates', resource: 'inventory_updates' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
    ],
  }),
  defineResource({
    key: 'job_templates',
    label: 'Job templates',
    singular: 'Job template',
    columns: [
      nameColumn('job_templates'),
      { field: 'status', label: 'Last run', render: (o) => <StatusLabel status={o.status} /> },
      refColumn('inventory', 'Inventory', 'inventories'),
      refColumn('project', 'Project', 'projects'),
      { field: 'last_job_run', label: 'Last ran', sort: true, wide: true, render: (o) => formatDate(o.last_job_run) },
    ],
    hiddenFormFields: ['survey_enabled'],
    formPage: () => import('../pages/templates/form/TemplateForm'),
    detailExtra: () => import('../pages/templates/TemplateRelations'),
    actions: () => import('../pages/templates/TemplateActions'),
    tabs: [
      { key: 'survey', label: 'Survey', component: () => import('../pages/templates/SurveyBuilder') },
      { key: 'jobs', label: 'Jobs', related: 'jobs', resource: 'jobs' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
      { key: 'notifications', label: 'Notifications', component: () => import('../pages/notifications/TemplateNotifications') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  }),
  defineResource({
    key: 'workflow_job_templates',
    label: 'Workflow templates',
    singular: 'Workflow template',
    columns: [
      nameColumn('workflow_job_templates'),
      { field: 'status', label: 'Last run', render: (o) => <StatusLabel status={o.status} /> },
      refColumn('organization', 'Organization', 'organizations'),
      { field: 'last_job_run', label: 'Last ran', sort: true, wide: true, render: (o) => formatDate(o.last_job_run) },
    ],
    hiddenFormFields: ['survey_enabled'],
    formPage: () => import('../pages/templates/form/TemplateForm'),
    detailExtra: () => import('../pages/templates/TemplateRelations'),
    actions: () => import('../pages/templates/TemplateActions'),
    tabs: [
      { key: 'visualizer', label: 'Visualizer', component: () => import('../pages/workflows/WorkflowEditor') },
      { key: 'survey', label: 'Survey', component: () => import('../pages/templates/SurveyBuilder') },
      { key: 'workflow_jobs', label: 'Jobs', related: 'workflow_jobs', resource: 'workflow_jobs' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
      { key: 'notifications', label: 'Notifications', component: () => import('../pages/notifications/TemplateNotifications') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  }),
  defineResource({
    key: 'unified_job_templates',
    label: 'Templates',
    singular: 'Template',
    creatable: false,
    columns: [
      { field: 'name', label: 'Name', sort: true, render: (o) => <Link to={templatePath(o)}>{String(o.name)}</Link> },
      { field: 'type', label: 'Type', sort: true },
      { field: 'status', label: 'Last run', render: (o) => <StatusLabel status={o.status} /> },
      modifiedColumn,
    ],
  }),
  runs('unified_jobs', 'Jobs', 'Job', { columns: [runNameColumn, statusColumn, runTypeColumn, launchedByColumn, dateColumn('started', 'Started'), dateColumn('finished', 'Finished')] }),
  runs('jobs', 'Playbook runs', RUN_TYPE_LABELS.job),
  runs('ad_hoc_commands', 'Commands', RUN_TYPE_LABELS.ad_hoc_command),
  runs('project_updates', 'Source control updates', RUN_TYPE_LABELS.project_update),
  runs('inventory_updates', 'Inventory syncs', RUN_TYPE_LABELS.inventory_update),
  runs('workflow_jobs', 'Workflows', RUN_TYPE_LABELS.workflow_job),
  runs('system_jobs', 'Management job runs', RUN_TYPE_LABELS.system_job),
  defineResource({
    key: 'system_job_templates',
    label: 'Management jobs',
    singular: 'Management job',
    creatable: false,
    columns: [nameColumn('system_job_templates'), { field: 'job_type', label: 'Job type' }, { field: 'description', label: 'Description', wide: true }],
    actions: () => import('../pages/templates/TemplateActions'),
    tabs: [
      { key: 'jobs', label: 'Jobs', related: 'jobs', resource: 'system_jobs' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
    ],
  }),
  defineResource({
    key: 'workflow_approvals',
    label: 'Workflow approvals',
    singular: 'Workflow approval',
    creatable: false,
    columns: [nameColumn('workflow_approvals'), statusColumn, dateColumn('created', 'Requested'), dateColumn('approval_expiration', 'Expires')],
    actions: () => import('../pages/workflows/ApprovalActions'),
  }),
  defineResource({
    key: 'schedules',
    label: 'Schedules',
    singular: 'Schedule',
    columns: [
      nameColumn('schedules'),
      { field: 'unified_job_template', label: 'Template', render: (o) => <SummaryTemplate object={o} /> },
      { field: 'enabled', label: 'Enabled', render: (o) => (o.enabled ? 'On' : 'Off') },
      dateColumn('next_run', 'Next run'),
    ],
    formPage: () => import('../pages/schedules/ScheduleForm'),
  }),
  defineResource({
    key: 'notification_templates',
    label: 'Notifications',
    singular: 'Notification template',
    columns: [nameColumn('notification_templates'), { field: 'notification_type', label: 'Type', sort: true }, refColumn('organization', 'Organization', 'organizations')],
    formPage: () => import('../pages/notifications/NotificationTemplateForm'),
    actions: () => import('../pages/notifications/NotificationTestAction'),
    tabs: [{ key: 'notifications', label: 'Sent', related: 'notifications', resource: 'notifications' }],
  }),
  defineResource({
    key: 'notifications',
    label: 'Sent notifications',
    singular: 'Notification',
    creatable: false,
    columns: [{ field: 'id', label: 'ID', sort: true }, statusColumn, { field: 'notification_type', label: 'Type' }, { field: 'subject', label: 'Subject', wide: true }, dateColumn('created', 'Sent')],
  }),
  defineResource({
    key: 'instances',
    label: 'Instances',
    singular: 'Instance',
    creatable: false,
    columns: [
      { field: 'hostname', label: 'Name', sort: true, render: (o) => <Link to={`/instances/${o.id}`}>{String(o.hostname)}</Link> },
      { field: 'node_type', label: 'Node type', sort: true },
      { field: 'capacity_adjustment', label: 'Capacity adjustment', wide: true, render: (o) => <CapacityAdjustment instance={o} /> },
      { field: 'capacity', label: 'Used capacity', render: (o) => <CapacityCell object={o} /> },
      { field: 'enabled', label: 'Enabled', render: (o) => <InstanceEnabledSwitch instance={o} /> },
      dateColumn('last_health_check', 'Last health check'),
    ],
    actions: () => import('../pages/instances/InstanceActions'),
  }),
  defineResource({
    key: 'instance_groups',
    label: 'Instance groups',
    singular: 'Instance group',
    columns: [nameColumn('instance_groups'), { field: 'capacity', label: 'Capacity', render: (o) => <CapacityCell object={o} /> }, { field: 'jobs_running', label: 'Running jobs', wide: true }],
    tabs: [{ key: 'instances', label: 'Instances', related: 'instances', resource: 'instances' }],
  }),
  defineResource({
    key: 'execution_environments',
    label: 'Execution environments',
    singular: 'Execution environment',
    columns: [nameColumn('execution_environments'), { field: 'image', label: 'Image', sort: true, wide: true }, refColumn('organization', 'Organization', 'organizations')],
  }),
  defineResource({
    key: 'applications',
    label: 'Applications',
    singular: 'Application',
    columns: [nameColumn('applications'), refColumn('organization', 'Organization', 'organizations'), modifiedColumn],
  }),
  defineResource({
    key: 'labels',
    label: 'Labels',
    singular: 'Label',
    columns: [nameColumn('labels'), refColumn('organization', 'Organization', 'organizations')],
  }),
  defineResource({
    key: 'drift_detections',
    label: 'Drift',
    singular: 'Drift detection',
    creatable: false,
    columns: [detectedColumn, refColumn('host', 'Host', 'hosts'), factPathColumn, severityColumn, { field: 'summary', label: 'Summary', wide: true }, acknowledgedColumn],
    listHeader: () => import('../pages/drift/DriftListHeader'),
    detailPage: () => import('../pages/drift/DriftDetectionPage'),
    actions: () => import('../pages/drift/AcknowledgeAction'),
    emptyHint: "Drift appears when a job with fact caching finds a host's facts changed since its previous snapshot.",
  }),
  defineResource({
    key: 'fact_snapshots',
    label: 'Fact snapshots',
    singular: 'Fact snapshot',
    creatable: false,
    columns: [
      { field: 'captured_at', label: 'Captured', sort: true, render: (o) => <Link to={`/fact_snapshots/${o.id}`}>{formatDate(o.captured_at)}</Link> },
      refColumn('host', 'Host', 'hosts'),
      { field: 'facts_hash', label: 'Hash', wide: true, render: (o) => <span className="drover-mono">{String(o.facts_hash ?? '').slice(0, 12)}</span> },
    ],
  }),
  defineResource({
    key: 'drift_alert_rules',
    label: 'Drift alert rules',
    singular: 'Drift alert rule',
    columns: [
      nameColumn('drift_alert_rules'),
      { field: 'enabled', label: 'Enabled', render: (o) => (o.enabled ? 'On' : 'Off') },
      ruleThresholdColumn,
      ruleCategoriesColumn,
      refColumn('organization', 'Organization', 'organizations'),
      dateColumn('last_fired_at', 'Last fired'),
    ],
    actions: () => import('../components/EnableDisableAction'),
    emptyHint: 'Alert rules raise an alert, and send a notification, when a host drifts enough within a time window.',
  }),
  defineResource({
    key: 'drift_alerts',
    label: 'Drift alerts',
    singular: 'Drift alert',
    creatable: false,
    columns: [alertCreatedColumn, refColumn('alert_rule', 'Rule', 'drift_alert_rules'), refColumn('host', 'Host', 'hosts'), { field: 'drift_count', label: 'Drift', sort: true }, notificationStatusColumn],
    emptyHint: 'Alerts appear when an enabled drift alert rule fires.',
  }),
  defineResource({
    key: 'event_rules',
    label: 'Event rules',
    singular: 'Event rule',
    columns: [nameColumn('event_rules'), refColumn('organization', 'Organization', 'organizations'), sourceTypeColumn, enabledColumn, fireCountColumn, dateColumn('last_fired_at', 'Last fired')],
    formPage: () => import('../pages/event-rules/EventRuleForm'),
    detailPage: () => import('../pages/event-rules/EventRulePage'),
    actions: () => import('../components/EnableDisableAction'),
    emptyHint: 'Event rules turn webhooks that other systems send into launches and notifications.',
  }),
  defineResource({
    key: 'event_logs',
    label: 'Event logs',
    singular: 'Event log',
    creatable: false,
    columns: [logReceivedColumn, logStatusColumn, logRuleColumn, logEventTypeColumn, logSourceIpColumn, logGuidColumn],
    listHeader: () => import('../pages/event-rules/EventLogFilters'),
    detailPage: () => import('../pages/event-rules/EventLogPage'),
    emptyHint: 'An event log is written for every webhook delivery an event rule receives.',
  }),
  defineResource({
    key: 'outbound_webhooks',
    label: 'Outbound webhooks',
    singular: 'Outbound webhook',
    columns: [
      nameColumn('outbound_webhooks'),
      enabledColumn,
      { field: 'url', label: 'URL', wide: true, render: (o) => <span className="drover-mono">{String(o.url)}</span> },
      lastStatusColumn,
      dateColumn('last_sent_at', 'Last sent'),
      refColumn('organization', 'Organization', 'organizations'),
    ],
    // `url` is the target here, which the generic details leave out as the object's own address.
    detailFields: ['name', 'description', 'organization', 'url', 'webhook_key', 'events', 'custom_headers', 'enabled', 'ssl_verify', 'last_status', 'last_sent_at', 'last_error', 'created', 'modified'],
    formPage: () => import('../pages/outbound-webhooks/OutboundWebhookForm'),
    actions: () => import('../pages/outbound-webhooks/SendTestAction'),
    tabs: [{ key: 'deliveries', label: 'Deliveries', component: () => import('../pages/outbound-webhooks/WebhookDeliveries') }],
    emptyHint: 'Outbound webhooks post a signed JSON message to a URL when a job or workflow of the organization starts or ends.',
  }),
  defineResource({
    key: 'policies',
    label: 'Policies',
    singular: 'Policy',
    columns: [nameColumn('policies'), refColumn('organization', 'Organization', 'organizations'), enforcementColumn, enabledColumn, syncColumn, triggerColumn, dateColumn('last_triggered_at', 'Last triggered')],
    detailFields: [
      'name', 'description', 'organization', 'package_path', 'enforcement', 'enabled', 'applies_to', 'sync_state', 'sync_error', 'synced_at',
      'trigger_count', 'last_triggered_at', 'last_evaluated_at', 'created', 'modified',
    ],
    formPage: () => import('../pages/policies/PolicyForm'),
    actions: () => import('../components/EnableDisableAction'),
    tabs: [
      { key: 'rego', label: 'Rego', component: () => import('../pages/policies/PolicyRego') },
      { key: 'test', label: 'Test', component: () => import('../pages/policies/PolicyTester') },
    ],
    emptyHint: 'Policies are Rego modules the policy engine evaluates before every job, workflow job and ad hoc command starts.',
  }),
  defineResource({
    key: 'policy_decisions',
    label: 'Policy decisions',
    singular: 'Policy decision',
    creatable: false,
    columns: [decisionCreatedColumn, decisionColumn, decisionPolicyColumn, decisionResourceColumn, refColumn('organization', 'Organization', 'organizations'), decisionMessageColumn],
    listHeader: () => import('../pages/policies/DecisionFilters'),
    detailPage: () => import('../pages/policies/DecisionPage'),
    emptyHint: 'A decision is recorded each time a policy warns about or denies a launch.',
  }),
  defineResource({
    key: 'service_catalog_items',
    label: 'Catalog items',
    singular: 'Catalog item',
    columns: catalogItemColumns,
    formPage: () => import('../pages/portal/CatalogItemForm'),
    actions: () => import('../pages/portal/CatalogItemActions'),
    tabs: [
      { key: 'requests', label: 'Requests', related: 'requests', resource: 'service_requests' },
      { key: 'notifications', label: 'Notifications', component: () => import('../pages/notifications/CatalogItemNotifications') },
    ],
    emptyHint: "Catalog items offer a job template or workflow to the organization's members, who request it by answering its survey.",
  }),
  defineResource({
    key: 'service_requests',
    label: 'Service requests',
    singular: 'Service request',
    creatable: false,
    columns: requestColumns,
    detailPage: () => import('../pages/portal/RequestPage'),
    actions: () => import('../pages/portal/DecisionActions'),
    filters: [{ key: 'status', label: 'Status', choicesOf: 'status' }, { key: 'mine', label: 'Mine', choices: [['true', 'Mine'], ['false', "Others'"]] }],
    emptyHint: 'Requests are made from the Catalog.',
  }),
  // The tenants' routes describe their objects only as {id, type} (no ResourceObject): typed in tenant-types.ts.
  listOf({
    key: 'tenants',
    label: 'Tenants',
    singular: 'Tenant',
    columns: tenantColumns,
    deletable: false,
    detailPage: () => import('../pages/tenants/TenantPage'),
    formPage: () => import('../pages/tenants/TenantForm'),
    actions: () => import('../pages/tenants/TenantActions'),
    emptyHint: 'A tenant is an organization of its own, with an admin, a default team, quotas on what its launches use, and the branding its console shows on its own domain.',
  }),
  defineResource({
    key: 'tenant_quota_events',
    label: 'Quota decisions',
    singular: 'Quota decision',
    creatable: false,
    columns: quotaEventColumns,
    filters: [
      { key: 'decision', label: 'Decision', choicesOf: 'decision' },
      { key: 'quota_kind', label: 'Quota', choicesOf: 'quota_kind' },
      { key: 'since', label: 'Since', input: 'datetime' },
    ],
    emptyHint: 'A decision is recorded each time a limited quota of a tenant is checked, at a launch or when a host is added.',
  }),
  defineResource({
    key: 'activity_stream',
    label: 'Activity stream',
    singular: 'Activity',
    creatable: false,
    detailPage: () => import('../pages/activity/ActivityEntryPage'),
    columns: [
      { field: 'timestamp', label: 'Time', sort: true, render: (o) => <Link to={`/activity_stream/${o.id}`}>{formatDate(o.timestamp)}</Link> },
      { field: 'operation', label: 'Operation', sort: true },
      { field: 'object1', label: 'Object', render: (o) => <ActivityObjects entry={o} /> },
      { field: 'changes', label: 'Actor', wide: true, render: (o) => String((o.summary_fields?.actor as { username?: string } | undefined)?.username ?? 'system') },
    ],
  }),
];

const BY_KEY = new Map(RESOURCES.map((r) => [r.key, r]));
export const resourceConfig = (key: string) => BY_KEY.get(key);
export const allResourceConfigs = () => RESOURCES;
