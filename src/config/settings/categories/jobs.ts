import { FieldProblem, boolean, choice, integer } from '../../../api/fields.ts';
import { stringList, stringMap } from '../shapes.ts';
import { category, setting } from '../types.ts';
import { awxJobSettings } from './jobs-awx.ts';

/** ALLOW_JINJA_IN_EXTRA_VARS: which extra vars Ansible may template (see src/jobs/extra-vars-file.ts). */
export type JinjaInExtraVars = 'always' | 'never' | 'template';

export const jobs = category({
  slug: 'jobs',
  name: 'Jobs',
  description: 'How jobs, project updates and inventory updates run.',
  settings: {
    SCHEDULE_MAX_JOBS: setting<number>(
      integer({
        default: 10,
        min: 1,
        label: 'Maximum Scheduled Jobs',
        helpText: 'Maximum number of the same job template that can be waiting to run when launching from a schedule before no more are created.',
      }),
    ),
    AD_HOC_COMMANDS: setting<string[]>(
      stringList({
        // AWX's default list, plus copy.
        default: [
          'command', 'shell', 'yum', 'apt', 'apt_key', 'apt_repository', 'apt_rpm', 'service', 'group', 'user', 'mount', 'ping',
          'selinux', 'setup', 'win_ping', 'win_service', 'win_updates', 'win_group', 'win_user', 'copy',
        ],
        label: 'Ansible Modules Allowed for Ad Hoc Jobs',
        helpText: 'List of modules allowed to be used by ad-hoc jobs.',
        item: (name) => {
          if (!/^[A-Za-z_][\w.]*$/.test(name)) throw new FieldProblem(`"${name}" is not a valid module name.`);
        },
      }),
      { child: { type: 'string' } },
    ),
    ALLOW_JINJA_IN_EXTRA_VARS: setting<JinjaInExtraVars>(
      choice([['always', 'Always'], ['never', 'Never'], ['template', 'Only On Job Template Definitions']], {
        default: 'template',
        required: true,
        label: 'When can extra variables contain Jinja templates?',
        helpText:
          'Ansible allows variable substitution via the Jinja2 templating language for --extra-vars. This poses a potential security risk where ' +
          'users with the ability to specify extra vars at job launch time can use Jinja2 templates to run arbitrary Python.  It is recommended ' +
          'that this value be set to "template" or "never".',
      }),
    ),
    SVC_TASK_ENV: setting<Record<string, string>>(
      stringMap({
        label: 'Extra Environment Variables',
        helpText: 'Additional environment variables set for playbook runs, inventory updates, project updates, and notification sending.',
      }),
      { child: { type: 'string' } },
    ),
    DEFAULT_JOB_TIMEOUT: setting<number>(
      integer({
        default: 0,
        min: 0,
        label: 'Default Job Timeout',
        helpText: 'Maximum time in seconds to allow jobs to run. Use 0 for no limit. A timeout set on a job template overrides this.',
      }),
      { unit: 'seconds' },
    ),
    DEFAULT_INVENTORY_UPDATE_TIMEOUT: setting<number>(
      integer({
        default: 0,
        min: 0,
        label: 'Default Inventory Update Timeout',
        helpText: 'Maximum time in seconds to allow inventory updates to run. Use 0 for no limit. A timeout set on an inventory source overrides this.',
      }),
      { unit: 'seconds' },
    ),
    DEFAULT_PROJECT_UPDATE_TIMEOUT: setting<number>(
      integer({
        default: 0,
        min: 0,
        label: 'Default Project Update Timeout',
        helpText: 'Maximum time in seconds to allow project updates to run. Use 0 for no limit. A timeout set on a project overrides this.',
      }),
      { unit: 'seconds' },
    ),
    MAX_FORKS: setting<number>(
      integer({
        default: 200,
        min: 0,
        label: 'Maximum number of forks per job',
        helpText: 'Saving a job template with more than this number of forks will result in an error. When set to 0, no limit is applied.',
      }),
    ),
    SVC_ROLES_ENABLED: setting<boolean>(
      boolean({
        default: true,
        label: 'Enable Role Download',
        helpText: 'Allows roles to be dynamically downloaded from a requirements.yml file for SCM projects.',
      }),
    ),
    SVC_COLLECTIONS_ENABLED: setting<boolean>(
      boolean({
        default: true,
        label: 'Enable Collection(s) Download',
        helpText: 'Allows collections to be dynamically downloaded from a requirements.yml file for SCM projects.',
      }),
    ),
    PROJECT_UPDATE_VVV: setting<boolean>(
      boolean({
        default: false,
        label: 'Run Project Updates With Higher Verbosity',
        helpText: 'Adds the CLI -vvv flag to ansible-playbook runs of project_update.yml used for project updates.',
      }),
    ),
    PROJECT_ARCHIVE_MAX_BYTES: setting<number>(
      integer({
        default: 104_857_600,
        min: 1,
        label: 'Largest Project Archive',
        helpText: 'Largest tar or zip file an archive project may download, in bytes (100 MiB by default).',
      }),
      { unit: 'bytes' },
    ),
    PROJECT_ARCHIVE_MAX_UNPACKED_BYTES: setting<number>(
      integer({
        default: 524_288_000,
        min: 1,
        label: 'Largest Unpacked Project Archive',
        helpText: 'Largest total size of the files an archive project unpacks, in bytes (500 MiB by default): a larger archive fails its update.',
      }),
      { unit: 'bytes' },
    ),
    PROJECT_LOCAL_SOURCE_DIRS: setting<string[]>(
      stringList({
        label: 'Directories for Local Source Control Repositories',
        helpText:
          'Absolute directories on the service host from which git projects may use file:// URLs or local paths (submodules included), ' +
          'and into which a manual project directory may be a link. The projects root, which holds every project checkout, is never allowed. ' +
          'Empty by default: only the demo repository (SVC_DATA_DIR/demo) is allowed.',
        item: (dir) => {
          if (!dir.startsWith('/')) throw new FieldProblem(`"${dir}" is not an absolute path.`);
        },
      }),
      { child: { type: 'string' } },
    ),
    AWX_ISOLATION_ENABLED: setting<boolean>(
      boolean({
        default: true,
        label: 'Isolate runs',
        helpText:
          'Run jobs, ad hoc commands, project and inventory updates inside a bubblewrap sandbox that sees the Ansible runtime, the run\'s own ' +
          'files and the paths listed to expose, never the service\'s data directory (its key, database and other runs). Turn off only on a ' +
          'node where bubblewrap cannot run and every user who may run a playbook may also act as the service user.',
      }),
    ),
    AWX_ISOLATION_HIDE_PATHS: setting<string[]>(
      stringList({
        label: 'Paths to hide from isolated runs',
        helpText:
          'Absolute paths among those runs see (the system directories and the paths exposed) to make empty inside the sandbox. Enter one path per line.',
        item: (dir) => {
          if (!dir.startsWith('/')) throw new FieldProblem(`${dir} is not a valid path choice. You must provide an absolute path.`);
        },
      }),
      { child: { type: 'string' } },
    ),
    ALLOW_CONNECTION_VARS_ON_LAUNCH: setting<boolean>(
      boolean({
        default: false,
        label: 'Allow connection and interpreter variables at launch',
        helpText:
          'Let launch-time values (extra variables, survey answers) set Ansible\'s connection, interpreter and executable variables ' +
          '(ansible_connection, ansible_python_interpreter, ansible_ssh_common_args...), which choose what runs where. When off, only the ' +
          'template\'s own extra variables and the inventory may set them.',
      }),
    ),
    ...awxJobSettings,
  },
  aliases: { AWX_TASK_ENV: 'SVC_TASK_ENV', AWX_ROLES_ENABLED: 'SVC_ROLES_ENABLED', AWX_COLLECTIONS_ENABLED: 'SVC_COLLECTIONS_ENABLED' },
});
