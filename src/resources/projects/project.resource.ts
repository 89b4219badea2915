import { boolean, choice, datetime, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { reverse } from '../../api/relations.ts';
import { objectRoles } from '../../rbac/relations.ts';
import { mayCreateCopy } from '../../api/copy-route.ts';
import { projectAccess } from './project-access.ts';
import { projectCopy } from './project-copy.ts';
import { afterProjectWrite, checkProject } from './project-hooks.ts';
import { beforeProjectDelete } from './project-delete.ts';
import { adminOf, notificationTemplateLists } from '../notification-templates/attachments.ts';
import type { ProjectRow } from '../../db/tables.ts';

export const PROJECT_STATUSES = ['new', 'pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled', 'never updated', 'ok', 'missing'];

export const projects = defineResource<ProjectRow>({
  name: 'project',
  table: 'projects',
  label: 'Project List',
  description: 'Playbooks and inventory files from source control (git) or a directory under the projects root.',
  // Labels as AWX's console names the fields (OPTIONS would otherwise read "Scm clean").
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true }),
    scm_type: choice([['', 'Manual'], ['git', 'Git'], ['archive', 'Remote Archive']], { default: '', label: 'Source Control Type' }),
    scm_url: text({ maxLength: 1024, label: 'Source Control URL' }),
    scm_branch: text({ maxLength: 256, label: 'Source Control Branch/Tag/Commit', helpText: 'Branch, tag or commit to check out; empty for the default branch.' }),
    scm_refspec: text({ maxLength: 1024, label: 'Source Control Refspec', helpText: 'Extra refs to fetch, e.g. refs/pull/*:refs/remotes/origin/pull/*.' }),
    scm_clean: boolean({ label: 'Clean', helpText: 'Discard any local changes before syncing.' }),
    scm_delete_on_update: boolean({ label: 'Delete', helpText: 'Delete the checkout entirely before every sync.' }),
    scm_track_submodules: boolean({ label: 'Track submodules', helpText: 'Check out submodules at the latest commit of their tracking branch.' }),
    credential: ref('credential'),
    timeout: integer({ default: 0, min: 0, helpText: 'Seconds a sync may run; 0 uses DEFAULT_PROJECT_UPDATE_TIMEOUT.' }),
    scm_update_on_launch: boolean({ label: 'Update revision on launch', helpText: 'Sync before each job run.' }),
    scm_update_cache_timeout: integer({ default: 0, min: 0, label: 'Cache timeout (seconds)', helpText: 'Seconds a sync stays fresh for scm_update_on_launch.' }),
    allow_override: boolean({ label: 'Allow branch override', helpText: 'Job templates may choose another branch (scm_branch).' }),
    local_path: text({ maxLength: 1024, helpText: 'For manual projects: a directory under the projects root. Set by the service for git projects.' }),
    default_environment: ref('execution_environment'),
    scm_revision: text({ readOnly: true, label: 'Source control revision' }),
    status: choice(PROJECT_STATUSES, { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
    last_update_failed: boolean({ readOnly: true }),
    last_updated: datetime({ readOnly: true }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description', 'scm_url'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'description', 'status', 'scm_type', 'allow_override'],
  related: {
    project_updates: reverse('project_update', 'project_updates', 'project_id'),
    schedules: reverse('schedule', 'schedules', 'unified_job_template_id', 'unified_job_template'),
    scm_inventory_sources: reverse('inventory_source', 'inventory_sources', 'source_project_id'),
    object_roles: objectRoles('project'),
    ...notificationTemplateLists({ owner: 'unified_job_template', mayAttachTo: adminOf('project') }),
  },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the project', parents: ['organization.project_admin_role'] },
    use_role: { name: 'Use', description: 'Can use the project in a job template', parents: ['admin_role'] },
    update_role: { name: 'Update', description: 'May update the project', parents: ['admin_role'] },
    read_role: { name: 'Read', description: 'May view settings for the project', parents: ['use_role', 'update_role', 'organization.auditor_role'] },
  },
  access: { ...projectAccess, actions: { ...projectAccess.actions, copy: mayCreateCopy('project', projectCopy) } },
  hooks: { beforeWrite: checkProject, afterWrite: afterProjectWrite, beforeDelete: beforeProjectDelete },
  decorate: (row, out) => {
    out.related = {
      ...(out.related as object),
      update: `/api/v2/projects/${row.id}/update/`,
      copy: `/api/v2/projects/${row.id}/copy/`,
      playbooks: `/api/v2/projects/${row.id}/playbooks/`,
      inventories: `/api/v2/projects/${row.id}/inventories/`,
      ...(row.last_job_id && { last_job: `/api/v2/project_updates/${row.last_job_id}/`, last_update: `/api/v2/project_updates/${row.last_job_id}/` }),
      ...(row.current_job_id && { current_job: `/api/v2/project_updates/${row.current_job_id}/`, current_update: `/api/v2/project_updates/${row.current_job_id}/` }),
    };
    out.scm_type = row.scm_type;
    out.custom_virtualenv = null;
    out.signature_validation_credential = null;
    out.next_job_run = null;
    if (row.last_job_id) {
      (out.summary_fields as Record<string, unknown>).last_job = { id: row.last_job_id, status: row.status, failed: row.last_job_failed, finished: row.last_job_run };
      (out.summary_fields as Record<string, unknown>).last_update = { id: row.last_job_id, status: row.status, failed: row.last_job_failed };
    }
  },
});
