import { boolean, choice, ref, text } from '../../api/fields.ts';
import { defineRunResource } from '../../runs/run-resource.ts';

export const projectUpdates = defineRunResource({
  name: 'project_update',
  label: 'Project Update List',
  typeLabel: 'SCM Update',
  description: 'Source-control syncs of projects.',
  fields: {
    project: ref('project', { readOnly: true }),
    credential: ref('credential', { readOnly: true }),
    job_type: choice(['run', 'check'], { readOnly: true }),
    scm_type: choice([['', 'Manual'], ['git', 'Git'], ['archive', 'Remote Archive']], { readOnly: true }),
    scm_url: text({ readOnly: true }),
    scm_branch: text({ readOnly: true }),
    scm_refspec: text({ readOnly: true }),
    scm_clean: boolean({ readOnly: true }),
    scm_track_submodules: boolean({ readOnly: true }),
    scm_delete_on_update: boolean({ readOnly: true }),
    scm_revision: text({ readOnly: true }),
    local_path: text({ readOnly: true }),
  },
  owner: { contentType: 'project', column: 'project_id' },
  cancelRole: 'update_role',
  template: { plural: 'projects', column: 'project_id' },
  playbookCounts: true,
});
