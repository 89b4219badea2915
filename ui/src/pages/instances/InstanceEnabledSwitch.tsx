import { Switch } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useInstancePatch } from './use-instance-patch';

/** Whether the instance takes new runs (AWX's instance toggle); a disabled instance offers no capacity. */
export function InstanceEnabledSwitch({ instance }: { instance: ResourceObject<'instances'> }) {
  const { busy, error, patch, mayChange } = useInstancePatch(instance);
  return (
    <>
      <Switch
        id={`instance-enabled-${instance.id}`}
        aria-label={`${instance.hostname} enabled`}
        label={instance.enabled ? 'On' : 'Off'}
        isChecked={instance.enabled}
        isDisabled={busy || !mayChange}
        onChange={(_e, enabled) => void patch({ enabled })}
      />
      <ErrorAlert error={error} title={`${instance.hostname} not changed`} />
    </>
  );
}
