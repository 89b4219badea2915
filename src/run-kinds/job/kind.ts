import type { RunKind } from '../../runs/run-kind.ts';
import { catalogJobLauncher } from './catalog-launch.ts';
import { JOB_TEMPLATE_FACET } from './prompts.ts';
import { callbackRoutes } from './callback-routes.ts';
import { createScheduleRoutes } from './create-schedule-routes.ts';
import { JOB } from './create-job.ts';
import { JOB_EVENTS } from './job-events.ts';
import { jobs } from './job.resource.ts';
import { hostSummaryRoutes } from './host-summary-routes.ts';
import { launchRoutes } from './launch-routes.ts';
import { relaunchRoutes } from './relaunch-routes.ts';
import { runPlaybookJob } from './run-job.ts';
import { callbackLauncher } from './callback.ts';
import { jobTemplateLauncher } from './launch.ts';
import { relaunchLauncher } from './relaunch.ts';
import { scheduledJobLauncher } from './scheduled-launch.ts';
import { jobWebhookLauncher } from './webhook-launch.ts';
import { workflowNodeJobLauncher } from './workflow-node-launch.ts';

/** Jobs: a playbook run of a job template, started by launch/, relaunch/ or a provisioning callback. */
export const jobKind: RunKind = {
  ...JOB,
  resource: jobs,
  unifiedJobsPosition: 3,
  dashboardJobType: 'playbook_run',
  webhookEvents: { prefix: 'job', outcomes: ['started', 'succeeded', 'failed', 'canceled'] },
  run: runPlaybookJob,
  template: JOB_TEMPLATE_FACET,
  templateIsSource: false,
  defaultTimeoutSetting: 'DEFAULT_JOB_TIMEOUT',
  routes: [jobs.runRoutes, launchRoutes, relaunchRoutes, callbackRoutes, hostSummaryRoutes, createScheduleRoutes],
  messages: { friendly: 'Job', ui: 'playbook', playbookFacts: true, projectTemplates: true },
  cleanup: { option: 'jobs', label: 'jobs' },
  events: JOB_EVENTS,
  onExecutionNodes: true,
  waitsFor: { updates: ['project_update', 'inventory_update'], launches: true },
  instanceGroupsFrom: ['job_template', 'inventory', 'organization'],
  policy: { resourceTypes: ['job_template'] },
  eventRuleAction: { type: 'launch_job_template', label: 'job template', contentType: 'job_template', role: 'execute_role' },
  launchers: {
    // launch/ of a template with job_slice_count > 1 goes through slicedJobLauncher (a workflow job of slices).
    manual: jobTemplateLauncher,
    relaunch: relaunchLauncher,
    callback: callbackLauncher,
    schedule: scheduledJobLauncher,
    workflowNode: workflowNodeJobLauncher,
    webhook: jobWebhookLauncher,
    eventRule: jobWebhookLauncher,
    catalog: catalogJobLauncher,
  },
};
