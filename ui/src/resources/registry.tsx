import { Link } from 'react-router';
import type { ResourceConfig } from './types';
import { StatusLabel, dateColumn, formatDate, modifiedColumn, nameColumn, refColumn, runNameColumn, statusColumn } from '../components/cells';
import { templatePath } from './run-paths';
import { CapacityCell } from '../components/CapacityCell';
import { SummaryTemplate } from '../components/SummaryTemplate';
import { ActivityObjects } from '../components/ActivityObjects';

const runs = (key: string, label: string, singular: string, extra: Partial<ResourceConfig> = {}): ResourceConfig => ({
  key,
  label,
  singular,
  creatable: false,
  columns: [runNameColumn, statusColumn, { field: 'launch_type', label: 'Launched by', wide: true }, dateColumn('started', 'Started'), dateColumn('finished', 'Finished')],
  detailPage: () => import('../pages/runs/RunPage'),
  ...extra,
});

const RESOURCES: ResourceConfig[] = [
  {
    key: 'organizations',
    label: 'Organizations',
    singular: 'Organization',
    columns: [nameColumn('organizations'), { field: 'description', label: 'Description', wide: true }, modifiedColumn],
    tabs: [
      { key: 'users', label: 'Users', related: 'users', resource: 'users' },
      { key: 'teams', label: 'Teams', related: 'teams', resource: 'teams' },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  },
  {
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
      { key: 'teams', label: 'Teams', related: 'teams', resource: 'teams' },
      { key: 'roles', label: 'Roles', component: () => import('../pages/roles/PrincipalRoles') },
    ],
  },
  {
    key: 'teams',
    label: 'Teams',
    singular: 'Team',
    columns: [nameColumn('teams'), refColumn('organization', 'Organization', 'organizations'), modifiedColumn],
    tabs: [
      { key: 'users', label: 'Members', related: 'users', resource: 'users' },
      { key: 'roles', label: 'Roles', component: () => import('../pages/roles/PrincipalRoles') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  },
  {
    key: 'credentials',
    label: 'Credentials',
    singular: 'Credential',
    columns: [nameColumn('credentials'), refColumn('credential_type', 'Type', 'credential_types'), refColumn('organization', 'Organization', 'organizations'), modifiedColumn],
    formPage: () => import('../pages/credentials/CredentialForm'),
    tabs: [{ key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') }],
  },
  {
    key: 'credential_types',
    label: 'Credential types',
    singular: 'Credential type',
    columns: [nameColumn('credential_types'), { field: 'kind', label: 'Kind', sort: true }, { field: 'managed', label: 'Managed', render: (o) => (o.managed ? 'Yes' : 'No') }],
  },
  {
    key: 'projects',
    label: 'Projects',
    singular: 'Project',
    columns: [
      nameColumn('projects'),
      statusColumn,
      { field: 'scm_type', label: 'Type', sort: true, wide: true },
      { field: 'scm_revision', label: 'Revision', wide: true, render: (o) => <span className="drover-mono">{String(o.scm_revision ?? '').slice(0, 8) || '–'}</span> },
      refColumn('organization', 'Organization', 'organizations'),
    ],
    actions: () => import('../pages/projects/ProjectActions'),
    tabs: [
      { key: 'playbooks', label: 'Playbooks', component: () => import('../pages/projects/Playbooks') },
      { key: 'project_updates', label: 'Syncs', related: 'project_updates', resource: 'project_updates' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  },
  {
    key: 'inventories',
    label: 'Inventories',
    singular: 'Inventory',
    columns: [
      nameColumn('inventories'),
      { field: 'kind', label: 'Kind', render: (o) => (o.kind === 'smart' ? 'Smart' : o.kind === 'constructed' ? 'Constructed' : 'Inventory') },
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
  },
  {
    key: 'hosts',
    label: 'Hosts',
    singular: 'Host',
    columns: [
      nameColumn('hosts'),
      refColumn('inventory', 'Inventory', 'inventories'),
      { field: 'enabled', label: 'Enabled', render: (o) => (o.enabled ? 'On' : 'Off') },
      { field: 'has_active_failures', label: 'Failures', wide: true, render: (o) => (o.has_active_failures ? <StatusLabel status="failed" /> : '–') },
    ],
    actions: () => import('../pages/inventories/RunCommandAction'),
    tabs: [
      { key: 'facts', label: 'Facts', component: () => import('../pages/inventories/HostFacts') },
      { key: 'groups', label: 'Groups', related: 'groups', resource: 'groups' },
      { key: 'job_host_summaries', label: 'Jobs', component: () => import('../pages/inventories/HostJobs') },
    ],
  },
  {
    key: 'groups',
    label: 'Groups',
    singular: 'Group',
    columns: [nameColumn('groups'), refColumn('inventory', 'Inventory', 'inventories'), modifiedColumn],
    tabs: [
      { key: 'hosts', label: 'Hosts', related: 'hosts', resource: 'hosts' },
      { key: 'children', label: 'Child groups', related: 'children', resource: 'groups' },
    ],
  },
  {
    key: 'inventory_sources',
    label: 'Inventory sources',
    singular: 'Inventory source',
    columns: [nameColumn('inventory_sources'), statusColumn, { field: 'source', label: 'Source', sort: true }, refColumn('inventory', 'Inventory', 'inventories')],
    actions: () => import('../pages/inventories/SourceActions'),
    tabs: [
      { key: 'inventory_updates', label: 'Syncs', related: 'inventory_updates', resource: 'inventory_updates' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
    ],
  },
  {
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
    actions: () => import('../pages/templates/TemplateActions'),
    tabs: [
      { key: 'survey', label: 'Survey', component: () => import('../pages/templates/SurveyBuilder') },
      { key: 'jobs', label: 'Jobs', related: 'jobs', resource: 'jobs' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
      { key: 'notifications', label: 'Notifications', component: () => import('../pages/notifications/TemplateNotifications') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  },
  {
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
    actions: () => import('../pages/templates/TemplateActions'),
    tabs: [
      { key: 'visualizer', label: 'Visualizer', component: () => import('../pages/workflows/WorkflowEditor') },
      { key: 'survey', label: 'Survey', component: () => import('../pages/templates/SurveyBuilder') },
      { key: 'workflow_jobs', label: 'Jobs', related: 'workflow_jobs', resource: 'workflow_jobs' },
      { key: 'schedules', label: 'Schedules', related: 'schedules', resource: 'schedules' },
      { key: 'notifications', label: 'Notifications', component: () => import('../pages/notifications/TemplateNotifications') },
      { key: 'access', label: 'Access', component: () => import('../pages/roles/ObjectAccess') },
    ],
  },
  {
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
  },
  runs('unified_jobs', 'Jobs', 'Job', { columns: [runNameColumn, statusColumn, { field: 'type', label: 'Type', sort: true, wide: true }, dateColumn('started', 'Started'), dateColumn('finished', 'Finished')] }),
  runs('jobs', 'Playbook runs', 'Job'),
  runs('ad_hoc_commands', 'Ad hoc commands', 'Ad hoc command'),
  runs('project_updates', 'Project syncs', 'Project sync'),
  runs('inventory_updates', 'Inventory syncs', 'Inventory sync'),
  runs('workflow_jobs', 'Workflow jobs', 'Workflow job'),
  runs('system_jobs', 'System jobs', 'System job'),
  {
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
  },
  {
    key: 'workflow_approvals',
    label: 'Workflow approvals',
    singular: 'Workflow approval',
    creatable: false,
    columns: [nameColumn('workflow_approvals'), statusColumn, dateColumn('created', 'Requested'), dateColumn('approval_expiration', 'Expires')],
    actions: () => import('../pages/workflows/ApprovalActions'),
  },
  {
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
  },
  {
    key: 'notification_templates',
    label: 'Notifications',
    singular: 'Notification template',
    columns: [nameColumn('notification_templates'), { field: 'notification_type', label: 'Type', sort: true }, refColumn('organization', 'Organization', 'organizations')],
    formPage: () => import('../pages/notifications/NotificationTemplateForm'),
    actions: () => import('../pages/notifications/NotificationTestAction'),
    tabs: [{ key: 'notifications', label: 'Sent', related: 'notifications', resource: 'notifications' }],
  },
  {
    key: 'notifications',
    label: 'Sent notifications',
    singular: 'Notification',
    creatable: false,
    columns: [{ field: 'id', label: 'ID', sort: true }, statusColumn, { field: 'notification_type', label: 'Type' }, { field: 'subject', label: 'Subject', wide: true }, dateColumn('created', 'Sent')],
  },
  {
    key: 'instances',
    label: 'Instances',
    singular: 'Instance',
    creatable: false,
    columns: [
      { field: 'hostname', label: 'Name', sort: true, render: (o) => <Link to={`/instances/${o.id}`}>{String(o.hostname)}</Link> },
      { field: 'node_type', label: 'Node type', sort: true },
      { field: 'capacity', label: 'Capacity', render: (o) => <CapacityCell object={o} /> },
      dateColumn('last_seen', 'Last seen'),
    ],
  },
  {
    key: 'instance_groups',
    label: 'Instance groups',
    singular: 'Instance group',
    columns: [nameColumn('instance_groups'), { field: 'capacity', label: 'Capacity', render: (o) => <CapacityCell object={o} /> }, { field: 'jobs_running', label: 'Running jobs', wide: true }],
    tabs: [{ key: 'instances', label: 'Instances', related: 'instances', resource: 'instances' }],
  },
  {
    key: 'execution_environments',
    label: 'Execution environments',
    singular: 'Execution environment',
    columns: [nameColumn('execution_environments'), { field: 'image', label: 'Image', sort: true, wide: true }, refColumn('organization', 'Organization', 'organizations')],
  },
  {
    key: 'applications',
    label: 'Applications',
    singular: 'Application',
    columns: [nameColumn('applications'), refColumn('organization', 'Organization', 'organizations'), modifiedColumn],
  },
  {
    key: 'labels',
    label: 'Labels',
    singular: 'Label',
    columns: [nameColumn('labels'), refColumn('organization', 'Organization', 'organizations')],
  },
  {
    key: 'activity_stream',
    label: 'Activity stream',
    singular: 'Activity',
    creatable: false,
    columns: [
      { field: 'timestamp', label: 'Time', sort: true, render: (o) => <Link to={`/activity_stream/${o.id}`}>{formatDate(o.timestamp)}</Link> },
      { field: 'operation', label: 'Operation', sort: true },
      { field: 'object1', label: 'Object', render: (o) => <ActivityObjects entry={o} /> },
      { field: 'changes', label: 'Actor', wide: true, render: (o) => String((o.summary_fields?.actor as { username?: string } | undefined)?.username ?? 'system') },
    ],
  },
];

const BY_KEY = new Map(RESOURCES.map((r) => [r.key, r]));
export const resourceConfig = (key: string) => BY_KEY.get(key);
export const allResourceConfigs = () => RESOURCES;
