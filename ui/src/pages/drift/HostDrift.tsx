import { Title } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import { DriftTimeline } from './DriftTimeline';
import { SnapshotCompare } from './SnapshotCompare';

/** A host's Drift tab: its drift over time, then any two of its fact snapshots compared. */
export default function HostDrift({ object }: { object: ResourceObject<'hosts'> }) {
  return (
    <>
      <DriftTimeline host={object} />
      <Title headingLevel="h2" size="lg" style={{ margin: '1.5rem 0 0.75rem' }}>Compare snapshots</Title>
      <SnapshotCompare host={object} />
    </>
  );
}
