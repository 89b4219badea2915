/** Which fields a project's source control type uses, and AWX's labels for them. */
import type { FieldOf } from '../../api/types';

type ScmType = FieldOf<'projects', 'scm_type'>;

/** The fields of each type (AWX's project subforms), options last. */
export const TYPE_FIELDS: Record<ScmType, string[]> = {
  '': ['local_path'],
  git: ['scm_url', 'scm_branch', 'scm_refspec', 'credential', 'scm_clean', 'scm_delete_on_update', 'scm_track_submodules', 'scm_update_on_launch', 'scm_update_cache_timeout', 'allow_override'],
  archive: ['scm_url', 'credential', 'scm_update_on_launch', 'scm_update_cache_timeout'],
};

/** Fields some type uses: shown only for the types that use them. */
export const TYPED_FIELDS = new Set(Object.values(TYPE_FIELDS).flat());

export const fieldsOfType = (type: unknown): string[] => (typeof type === 'string' && type in TYPE_FIELDS ? TYPE_FIELDS[type as ScmType] : []);

export const PROJECT_LABELS: Record<string, string> = {
  scm_type: 'Source control type',
  scm_url: 'Source control URL',
  scm_branch: 'Source control branch/tag/commit',
  scm_refspec: 'Source control refspec',
  credential: 'Source control credential',
  scm_clean: 'Clean',
  scm_delete_on_update: 'Delete',
  scm_track_submodules: 'Track submodules',
  scm_update_on_launch: 'Update revision on launch',
  scm_update_cache_timeout: 'Cache timeout (seconds)',
  allow_override: 'Allow branch override',
  local_path: 'Playbook directory',
  default_environment: 'Execution environment',
  timeout: 'Timeout (seconds)',
};
