import { Progress, ProgressMeasureLocation, ProgressSize } from '@patternfly/react-core';
import type { ResourceObject } from '../api/types';

/** Used capacity as a bar: consumed_capacity of capacity (AWX's fields on instances and groups). */
export function CapacityCell({ object }: { object: ResourceObject<'instances' | 'instance_groups'> }) {
  const capacity = Number(object.capacity ?? 0);
  const consumed = Number(object.consumed_capacity ?? 0);
  const percent = capacity > 0 ? Math.min(100, Math.round((consumed / capacity) * 100)) : 0;
  return (
    <Progress
      value={percent}
      title={`${consumed} of ${capacity} used`}
      aria-label={`Capacity: ${consumed} of ${capacity} used`}
      size={ProgressSize.sm}
      measureLocation={ProgressMeasureLocation.outside}
      style={{ minWidth: '8rem' }}
    />
  );
}
