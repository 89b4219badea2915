/**
 * Job settings AWX 24 has beyond the spec's: accepted with AWX's defaults, types and checks so
 * its clients can set them. docs/settings.md says which ones Drover honours and which have no
 * effect here (those of AWX's containers and Kubernetes).
 */
import { FieldProblem, boolean, integer, text } from '../../../api/fields.ts';
import { stringList, stringMap } from '../shapes.ts';
import { setting } from '../types.ts';

const MOUNT_OPTIONS = ['z', 'O', 'ro', 'rw'];

/** AWX's HOST-DIR[:CONTAINER-DIR[:OPTIONS]], every directory absolute. */
function isolatedPath(item: string): void {
  const parts = item.split(':');
  if (parts.length > 3) throw new FieldProblem(`Invalid syntax. A string HOST-DIR[:CONTAINER-DIR[:OPTIONS]] is expected but got ${item}.`);
  const [source, target, options] = parts;
  for (const dir of parts.length > 1 ? [source, target] : [source]) {
    if (!dir) throw new FieldProblem(`Invalid syntax. A string HOST-DIR[:CONTAINER-DIR[:OPTIONS]] is expected but got ${item}.`);
    if (!dir.startsWith('/')) throw new FieldProblem(`${dir} is not a valid path choice. You must provide an absolute path.`);
  }
  if (options !== undefined && !MOUNT_OPTIONS.includes(options)) {
    throw new FieldProblem(`${options} is not a valid mount option. Allowed types are ${MOUNT_OPTIONS.join(', ')}`);
  }
}

const bytes = (label: string, helpText: string, value: number) => setting<number>(integer({ default: value, min: 0, label, helpText }));

export const awxJobSettings = {
  AWX_ISOLATION_BASE_PATH: setting<string>(
    text({
      default: '/tmp',
      allowBlank: false,
      label: 'Job execution path',
      helpText: 'The directory in which the service will create new temporary directories for job execution and isolation (such as credential files).',
    }),
  ),
  AWX_ISOLATION_SHOW_PATHS: setting<string[]>(
    stringList({
      label: 'Paths to expose to isolated jobs',
      helpText:
        'List of paths that would otherwise be hidden to expose to isolated jobs. Enter one path per line. Volumes will be mounted from the execution node to the container. The supported format is HOST-DIR[:CONTAINER-DIR[:OPTIONS]]. ',
      // Drover mounts them in the run's sandbox, read-only unless the item ends with :rw (docs/settings.md).
      item: isolatedPath,
    }),
    { child: { type: 'string' } },
  ),
  AWX_RUNNER_KEEPALIVE_SECONDS: setting<number>(
    integer({
      default: 0,
      label: 'K8S Ansible Runner Keep-Alive Message Interval',
      helpText: 'Only applies to jobs running in a Container Group. If not 0, send a message every so-many seconds to keep connection open.',
    }),
    // Container groups only: Drover runs no containers, so the console hides it (AWX's `hidden`).
    { placeholder: 240, hidden: true },
  ),
  GALAXY_TASK_ENV: setting<Record<string, string>>(
    stringMap({
      default: { ANSIBLE_FORCE_COLOR: 'false', GIT_SSH_COMMAND: 'ssh -o StrictHostKeyChecking=no' },
      label: 'Environment Variables for Galaxy Commands',
      helpText:
        'Additional environment variables set for invocations of ansible-galaxy within project updates. Useful if you must use a proxy server for ansible-galaxy but not git.',
    }),
    { child: { type: 'string' }, placeholder: { HTTP_PROXY: 'myproxy.local:8080' } },
  ),
  AWX_SHOW_PLAYBOOK_LINKS: setting<boolean>(
    boolean({
      default: false,
      label: 'Follow symlinks',
      helpText:
        'Follow symbolic links when scanning for playbooks. Be aware that setting this to True can lead to infinite recursion if a link points to a parent directory of itself.',
    }),
  ),
  AWX_MOUNT_ISOLATED_PATHS_ON_K8S: setting<boolean>(
    boolean({
      default: false,
      label: 'Expose host paths for Container Groups',
      helpText:
        'Expose paths via hostPath for the Pods created by a Container Group. HostPath volumes present many security risks, and it is a best practice to avoid the use of HostPaths when possible. ',
    }),
    // Kubernetes only: nothing to expose here, so the console hides it.
    { hidden: true },
  ),
  GALAXY_IGNORE_CERTS: setting<boolean>(
    boolean({
      default: false,
      label: 'Ignore Ansible Galaxy SSL Certificate Verification',
      helpText: 'If set to true, certificate validation will not be done when installing content from any Galaxy server.',
    }),
  ),
  STDOUT_MAX_BYTES_DISPLAY: bytes(
    'Standard Output Maximum Display Size',
    'Maximum Size of Standard Output in bytes to display before requiring the output be downloaded.',
    1_048_576,
  ),
  EVENT_STDOUT_MAX_BYTES_DISPLAY: bytes(
    'Job Event Standard Output Maximum Display Size',
    'Maximum Size of Standard Output in bytes to display for a single job or ad hoc command event. `stdout` will end with `\u2026` when truncated.',
    1024,
  ),
  MAX_WEBSOCKET_EVENT_RATE: setting<number>(
    integer({
      default: 30,
      min: 0,
      label: 'Job Event Maximum Websocket Messages Per Second',
      helpText: 'Maximum number of messages to update the UI live job output with per second. Value of 0 means no limit.',
    }),
  ),
  AWX_ANSIBLE_CALLBACK_PLUGINS: setting<string[]>(
    stringList({
      label: 'Ansible Callback Plugins',
      helpText: 'List of paths to search for extra callback plugins to be used when running jobs. Enter one path per line.',
      item: (dir) => {
        if (dir.includes(':')) throw new FieldProblem(`"${dir}" may not contain ":".`);
      },
    }),
    { child: { type: 'string' } },
  ),
  DEFAULT_JOB_IDLE_TIMEOUT: setting<number>(
    integer({
      default: 0,
      min: 0,
      label: 'Default Job Idle Timeout',
      helpText:
        'If no output is detected from ansible in this number of seconds the execution will be terminated. Use value of 0 to indicate that no idle timeout should be imposed.',
    }),
    { unit: 'seconds' },
  ),
  ANSIBLE_FACT_CACHE_TIMEOUT: setting<number>(
    integer({
      default: 0,
      min: 0,
      label: 'Per-Host Ansible Fact Cache Timeout',
      helpText:
        'Maximum time, in seconds, that stored Ansible facts are considered valid since the last time they were modified. Only valid, non-stale, facts will be accessible by a playbook. Note, this does not influence the deletion of ansible_facts from the database. Use a value of 0 to indicate that no timeout should be imposed.',
    }),
    { unit: 'seconds' },
  ),
  DEFAULT_CONTAINER_RUN_OPTIONS: setting<string[]>(
    stringList({
      default: ['--network', 'slirp4netns:enable_ipv6=true'],
      label: 'Container Run Options',
      helpText: "List of options to pass to podman run example: ['--network', 'slirp4netns:enable_ipv6=true', '--log-level', 'debug']",
    }),
    // Podman only: Drover runs no containers, so the console hides it.
    { child: { type: 'string' }, hidden: true },
  ),
};
