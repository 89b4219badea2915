import { Link } from 'react-router';
import type { Run } from './run-kinds';
import type { FieldOf } from '../../api/types';
import { objectPath } from '../../resources/run-paths';

/** AWX's launched_by: who or what started the run (a user, a schedule, a workflow...). */
interface Launcher {
  id?: number;
  name?: string;
  type?: string;
}

/** Launch types that name no launcher of their own: the run was started by the system. */
const SYSTEM_LAUNCH: Partial<Record<FieldOf<'unified_jobs', 'launch_type'>, string>> = { scheduled: 'Schedule', dependency: 'Dependency', workflow: 'Workflow', sync: 'Sync', scm: 'Source control', callback: 'Provisioning callback', webhook: 'Webhook' };

/** Who launched the run, linked to its page; else how it was started. */
export function LaunchedBy({ run }: { run: Run }) {
  const launcher = (run as { launched_by?: Launcher }).launched_by;
  if (launcher?.id && launcher.type) return <Link to={objectPath(launcher.type, launcher.id)}>{launcher.name ?? `#${launcher.id}`}</Link>;
  return <>{SYSTEM_LAUNCH[run.launch_type] ?? '–'}</>;
}
