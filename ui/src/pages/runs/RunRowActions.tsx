import type { Run } from './run-kinds';
import { RunActions } from './RunActions';

/** A list's row of a run: relaunch, and cancel while it runs, as the run's page offers them. */
export default function RunRowActions({ object, variant }: { object: Run; variant: 'row' | 'detail' }) {
  return <RunActions run={object} variant={variant} />;
}
