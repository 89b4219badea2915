import type { UnifiedJobRow } from '../../db/tables.ts';
import type { RunKind } from '../../runs/run-kind.ts';
import { catalogWorkflowLauncher } from './catalog-launch.ts';
import { WORKFLOW_TEMPLATE_FACET } from './prompts.ts';
import { workflowLaunchRoutes } from './launch-routes.ts';
import { bulkLaunchRoutes } from './bulk-launch-routes.ts';
import { nestedWorkflowLauncher, workflowTemplateLauncher } from './launch.ts';
import { workflowRelauncher } from './relaunch.ts';
import { scheduledWorkflowLauncher } from './scheduled-launch.ts';
import { workflowWebhookLauncher } from './webhook-launch.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { workflowJobs } from './workflow-job.resource.ts';

/**
 * Workflow jobs take no capacity and run no process: the workflow pass (src/run-kinds/workflow-job/workflow-pass.ts)
 * starts them, launches their nodes as their parents end, and finishes them.
 */
export const workflowJobKind: RunKind = {
  ...WORKFLOW_JOB,
  resource: workflowJobs,
  unifiedJobsPosition: 6,
  // Workflows have no canceled event (docs/outbound-webhooks.md#events).
  webhookEvents: { prefix: 'workflow', outcomes: ['started', 'succeeded', 'failed'] },
  run: async () => ({ status: 'error', explanation: 'Workflow jobs are not run by a node.' }),
  template: WORKFLOW_TEMPLATE_FACET,
  templateIsSource: false,
  placed: false,
  // AWX's group for a workflow's node changes.
  eventGroup: 'workflow_events',
  routes: [workflowJobs.runRoutes, workflowLaunchRoutes, bulkLaunchRoutes],
  messages: { friendly: 'Workflow Job', ui: 'workflow', workflowUrl: true },
  // A sliced job template launch makes a workflow job: it is still a job template's launch.
  policy: { resourceTypes: ['workflow_job_template', 'job_template'], resourceTypeOf: (run: UnifiedJobRow) => (run.is_sliced_job ? 'job_template' : 'workflow_job_template') },
  eventRuleAction: { type: 'launch_workflow', label: 'workflow job template', contentType: 'workflow_job_template', role: 'execute_role' },
  launchers: {
    manual: workflowTemplateLauncher,
    relaunch: workflowRelauncher,
    schedule: scheduledWorkflowLauncher,
    workflowNode: nestedWorkflowLauncher,
    webhook: workflowWebhookLauncher,
    eventRule: workflowWebhookLauncher,
    catalog: catalogWorkflowLauncher,
  },
};
