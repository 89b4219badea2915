import type { RunKind } from '../../runs/run-kind.ts';
import { systemJobLaunchRoutes } from './launch-routes.ts';
import { scheduledSystemJobLauncher, SYSTEM_JOB, systemJobLauncher, workflowNodeSystemJobLauncher } from './launcher.ts';
import { runSystemJob } from './run-system-job.ts';
import { systemJobs } from './system-job.resource.ts';

/** System jobs: the service's maintenance (cleanups), launched by superusers or by their default schedules. */
export const systemJobKind: RunKind = {
  ...SYSTEM_JOB,
  resource: systemJobs,
  unifiedJobsPosition: 5,
  run: runSystemJob,
  templateIsSource: false,
  routes: [systemJobs.runRoutes, systemJobLaunchRoutes],
  messages: { friendly: 'System Job', ui: 'system' },
  cleanup: { option: 'management-jobs', label: 'management jobs' },
  launchers: { manual: systemJobLauncher, schedule: scheduledSystemJobLauncher, workflowNode: workflowNodeSystemJobLauncher },
};
