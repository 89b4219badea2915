import { Label, LabelGroup } from '@patternfly/react-core';
import type { Run } from './run-kinds';

/** Host outcomes as the run's host_status_counts name them, with the words the console uses. */
const STATUSES: [key: string, label: string, color: 'green' | 'orange' | 'red' | 'grey' | 'purple'][] = [
  ['ok', 'ok', 'green'],
  ['changed', 'changed', 'orange'],
  ['failures', 'failed', 'red'],
  ['skipped', 'skipped', 'grey'],
  ['dark', 'unreachable', 'purple'],
];

export function HostStatusChips({ run }: { run: Run }) {
  const counts = (run.host_status_counts ?? {}) as Record<string, number>;
  const shown = STATUSES.filter(([key]) => counts[key]);
  if (!shown.length) return null;
  return (
    <LabelGroup aria-label="Hosts by status" numLabels={shown.length}>
      {shown.map(([key, label, color]) => (
        <Label key={key} color={color} isCompact data-host-status={label} aria-label={`${label}: ${counts[key]} host${counts[key] === 1 ? '' : 's'}`}>
          {label} {counts[key]}
        </Label>
      ))}
    </LabelGroup>
  );
}
