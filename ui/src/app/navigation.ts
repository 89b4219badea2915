export interface NavGroup {
  group: string;
  /**
   * The group's sections are about the service itself (its nodes, maintenance, settings): one whose
   * list shows the user nothing is left out, as there is nothing there for them to see or do.
   */
  hideWhenEmpty?: boolean;
  items: { label: string; path: string }[];
}

/** The sidebar, grouped as AWX users know it. A section is offered only where its list answers (see useNavigation). */
export const NAVIGATION: NavGroup[] = [
  {
    group: 'Views',
    items: [
      { label: 'Dashboard', path: '/' },
      { label: 'Jobs', path: '/unified_jobs' },
      { label: 'Schedules', path: '/schedules' },
      { label: 'Activity stream', path: '/activity_stream' },
      { label: 'Workflow approvals', path: '/workflow_approvals' },
    ],
  },
  {
    group: 'Resources',
    items: [
      { label: 'Templates', path: '/job_templates' },
      { label: 'Workflow templates', path: '/workflow_job_templates' },
      { label: 'Credentials', path: '/credentials' },
      { label: 'Projects', path: '/projects' },
      { label: 'Inventories', path: '/inventories' },
      { label: 'Hosts', path: '/hosts' },
    ],
  },
  {
    group: 'Drift',
    items: [
      { label: 'Drift', path: '/drift_detections' },
      { label: 'Alert rules', path: '/drift_alert_rules' },
      { label: 'Alerts', path: '/drift_alerts' },
    ],
  },
  {
    group: 'Event-driven',
    items: [
      { label: 'Event rules', path: '/event_rules' },
      { label: 'Event logs', path: '/event_logs' },
      { label: 'Outbound webhooks', path: '/outbound_webhooks' },
    ],
  },
  {
    group: 'Policies',
    items: [
      { label: 'Policies', path: '/policies' },
      { label: 'Decisions', path: '/policy_decisions' },
    ],
  },
  {
    group: 'Access',
    items: [
      { label: 'Organizations', path: '/organizations' },
      { label: 'Users', path: '/users' },
      { label: 'Teams', path: '/teams' },
    ],
  },
  {
    group: 'Administration',
    hideWhenEmpty: true,
    items: [
      { label: 'Credential types', path: '/credential_types' },
      { label: 'Notifications', path: '/notification_templates' },
      { label: 'Management jobs', path: '/system_job_templates' },
      { label: 'Instance groups', path: '/instance_groups' },
      { label: 'Instances', path: '/instances' },
      { label: 'Applications', path: '/applications' },
      { label: 'Execution environments', path: '/execution_environments' },
      { label: 'Settings', path: '/settings' },
    ],
  },
];

/** The API list behind a section (the dashboard has none: everyone has one). */
export const sectionList = (path: string): string | undefined => (path === '/' ? undefined : `/api/v2${path}/`);
