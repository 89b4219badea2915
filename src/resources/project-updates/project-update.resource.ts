import { hasObjectRole, isSuperuser, visibleThroughRole } from '../../api/access.ts';
import { addRoutes } from '../../api/extra-routes.ts';
import { forbidden } from '../../api/errors.ts';
import { defineResource } from '../../api/resource.ts';
import { registerRunRoutes } from '../../dispatcher/run-routes.ts';
import { registerRunner } from '../../dispatcher/runners.ts';
import { ACTIVE_STATUSES } from '../../dispatcher/unified-jobs.ts';
import { syncProject } from '../../projects/sync.ts';
import { boolean, choice, ref, text } from '../../api/fields.ts';
import { runFields } from '../unified-jobs/run-fields.ts';

export const projectUpdates = defineResource({
  name: 'project_update',
  table: 'project_updates',
  label: 'Project Update List',
  description: 'Source-control syncs of projects.',
  operations: { create: false, update: false },
  ordering: '-id',
  search: ['name', 'description'],
  fields: {
    ...runFields(),
    project: ref('project', { readOnly: true }),
    credential: ref('credential', { readOnly: true }),
    job_type: choice(['run', 'check'], { readOnly: true }),
    scm_type: choice([['', 'Manual'], ['git', 'Git']], { readOnly: true }),
    scm_url: text({ readOnly: true }),
    scm_branch: text({ readOnly: true }),
    scm_refspec: text({ readOnly: true }),
    scm_clean: boolean({ readOnly: true }),
    scm_track_submodules: boolean({ readOnly: true }),
    scm_delete_on_update: boolean({ readOnly: true }),
    scm_revision: text({ readOnly: true }),
    local_path: text({ readOnly: true }),
  },
  summaryColumns: ['id', 'name', 'description', 'status', 'failed'],
  access: {
    visible: (ctx, alias, params) => {
      const projects = visibleThroughRole(ctx, 'p', params, 'project');
      return projects === null ? null : `${alias}.project_id IN (SELECT p.id FROM projects p WHERE ${projects})`;
    },
    canCreate: () => false,
    canChange: () => false,
    canDelete: async (ctx, tx, row) => !(ACTIVE_STATUSES as readonly string[]).includes(row.status) && (isSuperuser(ctx) || hasObjectRole(ctx, tx, 'project', row.project_id, 'admin_role')),
    canAttach: () => false,
  },
  hooks: {
    beforeDelete: (_tx, _ctx, row) => {
      if ((ACTIVE_STATUSES as readonly string[]).includes(row.status)) throw forbidden('Cannot delete a running project update.');
    },
  },
  decorate: (row, out) => {
    out.related = {
      ...(out.related as object),
      stdout: `/api/v2/project_updates/${row.id}/stdout/`,
      events: `/api/v2/project_updates/${row.id}/events/`,
      cancel: `/api/v2/project_updates/${row.id}/cancel/`,
      unified_job_template: `/api/v2/projects/${row.project_id}/`,
    };
    out.unified_job_template = row.project_id;
  },
});

registerRunner('project_update', syncProject, {
  templateTable: 'projects',
  defaultTimeoutSetting: 'DEFAULT_PROJECT_UPDATE_TIMEOUT',
  afterFinish: async (tx, job) => {
    if (job.status === 'successful') await tx.query('UPDATE projects SET scm_revision = $2 WHERE id = $1', [job.project_id, job.scm_revision]);
  },
});

addRoutes((app, services) =>
  registerRunRoutes(app, services, projectUpdates, {
    mayCancel: async (request, svc, run) =>
      isSuperuser(request.ctx) || run.created_by_id === request.ctx.user?.id || hasObjectRole(request.ctx, svc.db, 'project', run.project_id, 'update_role'),
  }),
);
