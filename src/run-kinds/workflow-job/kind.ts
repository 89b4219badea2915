import type { RunKind } from '../../runs/run-kind.ts';
import { WORKFLOW_TEMPLATE_FACET } from './prompts.ts';
import { workflowLaunchRoutes } from './launch-routes.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { workflowJobs } from './workflow-job.resource.ts';

/**
 * Workflow jobs take no capacity and run no process: the workflow pass (src/task-manager/workflow-pass.ts)
 * starts them, launches their nodes as their parents end, and finishes them.
 */
export const workflowJobKind: RunKind = {
  ...WORKFLOW_JOB,
  resource: workflowJobs,
  run: async () => ({ status: 'error', explanation: 'Workflow jobs are not run by a node.' }),
  template: WORKFLOW_TEMPLATE_FACET,
  templateIsSource: false,
  placed: false,
  routes: [workflowJobs.runRoutes, workflowLaunchRoutes],
};
