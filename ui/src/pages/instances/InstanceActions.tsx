import type { ResourceObject } from '../../api/types';
import { CapacityAdjustment } from './CapacityAdjustment';
import { HealthCheckButton } from './HealthCheckButton';
import { InstanceEnabledSwitch } from './InstanceEnabledSwitch';

/** An instance's row: its health check; its page: the enable switch and capacity adjustment as well. */
export default function InstanceActions({ object, variant }: { object: ResourceObject<'instances'>; variant: 'row' | 'detail' }) {
  return (
    <>
      {variant === 'detail' && <CapacityAdjustment instance={object} />}
      {variant === 'detail' && <InstanceEnabledSwitch instance={object} />}
      <HealthCheckButton instance={object} variant={variant} />
    </>
  );
}
