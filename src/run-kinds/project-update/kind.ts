import type { RunKind } from '../../runs/run-kind.ts';
import { projectUpdates } from './project-update.resource.ts';
import { PROJECT_UPDATE, projectUpdateLauncher, scheduledProjectUpdateLauncher, workflowNodeProjectUpdateLauncher } from './queue.ts';
import { syncProject } from './sync.ts';
import { projectDependencies } from './dependencies.ts';

/** Project updates: a git sync of a project into its checkout, started by update/, a source change or a job's dependency. */
export const projectUpdateKind: RunKind = {
  ...PROJECT_UPDATE,
  resource: projectUpdates,
  unifiedJobsPosition: 1,
  dashboardJobType: 'scm_update',
  run: syncProject,
  defaultTimeoutSetting: 'DEFAULT_PROJECT_UPDATE_TIMEOUT',
  afterFinish: async (tx, job) => {
    if (job.status === 'successful') await tx.query('UPDATE projects SET scm_revision = $2 WHERE id = $1', [job.project_id, job.scm_revision]);
  },
  routes: [projectUpdates.runRoutes],
  messages: { friendly: 'Project Update', ui: 'project' },
  cleanup: { option: 'project-updates', label: 'project updates' },
  // Playbook events of the project's sync playbook, run on localhost (AWX's ProjectUpdateEventSerializer).
  events: {
    fields: ['event', 'counter', 'event_display', 'event_data', 'event_level', 'failed', 'changed', 'uuid', 'host_name',
      'playbook', 'play', 'task', 'role', 'stdout', 'start_line', 'end_line', 'verbosity', 'project_update'],
    playbook: true,
    host: false,
    children: false,
    summary: true,
    fixed: { host_name: 'localhost' },
  },
  launchers: { manual: projectUpdateLauncher, schedule: scheduledProjectUpdateLauncher, workflowNode: workflowNodeProjectUpdateLauncher },
  templateAction: 'update',
  update: { of: 'project_id', dependencies: projectDependencies },
  // It runs where the organization's groups say; its project has none and the inventory does not apply.
  instanceGroupsFrom: ['organization'],
};
