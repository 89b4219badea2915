export interface NavGroup {
  group: string;
  /**
   * The group's sections are about the service itself (its nodes, maintenance, settings): one whose
   * list shows the user nothing is left out, as there is nothing there for them to see or do.
   */
  hideWhenEmpty?: boolean;
  items: NavItem[];
}

export interface NavItem {
  label: string;
  path: string;
  /** The API list that decides whether the section is offered (default /api/v2<path>/). */
  list?: string;
  /**
   * Offered only when its list holds something (an inbox), or only to those who may add to it (an
   * administration of objects others see elsewhere); `refresh` asks again that often (ms) while
   * the console is open, for a list that fills as others work.
   */
  only?: 'when-some' | 'to-adders';
  refresh?: number;
}

/** The sidebar, grouped as AWX users know it. A section is offered only where its list answers (see useNavigation). */
export const NAVIGATION: NavGroup[] = [
  {
    group: 'Views',
    items: [
      { label: 'Dashboard', path: '/' },
      { label: 'Analytics', path: '/analytics', list: '/api/v2/svc_analytics/' },
      { label: 'Jobs', path: '/unified_jobs' },
      { label: 'Schedules', path: '/schedules' },
      { label: 'Activity stream', path: '/activity_stream' },
      { label: 'Workflow approvals', path: '/workflow_approvals' },
    ],
  },
  {
    group: 'Self-service',
    items: [
      { label: 'Catalog', path: '/catalog', list: '/api/v2/service_catalog_items/' },
      { label: 'My requests', path: '/my_requests', list: '/api/v2/service_requests/' },
      // The inbox: offered while some request waits for the user's decision.
      { label: 'Approvals', path: '/approvals', list: '/api/v2/service_requests/pending_approvals/', only: 'when-some', refresh: 30_000 },
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
      { label: 'Catalog items', path: '/service_catalog_items', only: 'to-adders' },
      { label: 'Credential types', path: '/credential_types' },
      { label: 'Notifications', path: '/notification_templates' },
      { label: 'Management jobs', path: '/system_job_templates' },
      { label: 'Instance groups', path: '/instance_groups' },
      { label: 'Instances', path: '/instances' },
      { label: 'Applications', path: '/applications' },
      { label: 'Execution environments', path: '/execution_environments' },
      { label: 'Tenants', path: '/tenants' },
      { label: 'Quota decisions', path: '/tenant_quota_events' },
      { label: 'Scanners', path: '/scanners' },
      { label: 'Scan results', path: '/scan_results' },
      { label: 'Settings', path: '/settings' },
    ],
  },
];

/** The API list behind a section (the dashboard has none: everyone has one). */
export const sectionList = (item: NavItem): string | undefined => (item.path === '/' ? undefined : item.list ?? `/api/v2${item.path}/`);
