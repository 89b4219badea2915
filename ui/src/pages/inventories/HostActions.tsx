import type { ResourceObject } from '../../api/types';
import HostEnabledSwitch from './HostEnabledSwitch';
import RunCommandAction from './RunCommandAction';

/** A host's page: its enable switch beside Run command (the lists have the switch in a column). */
export default function HostActions({ object, variant }: { object: ResourceObject<'hosts'>; variant: 'row' | 'detail' }) {
  return (
    <>
      {variant === 'detail' && <HostEnabledSwitch host={object} />}
      <RunCommandAction object={object} variant={variant} />
    </>
  );
}
