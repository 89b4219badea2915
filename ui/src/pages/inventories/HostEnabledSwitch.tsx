import { Switch } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { objectUrl } from '../../api/object-url';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';

/**
 * A host's enabled flag as a switch (AWX's host toggle): PATCHes `enabled` for those who may change
 * the host; read-only for the others. Jobs skip disabled hosts.
 */
export default function HostEnabledSwitch({ host }: { host: ResourceObject<'hosts'> }) {
  const { busy, error, change } = useServerChange();
  const name = String(host.name);
  const toggle = (enabled: boolean) => change(() => http.patch(objectUrl(host), { enabled }));
  return (
    <>
      <Switch
        id={`host-enabled-${host.id}`}
        aria-label={`${name} enabled`}
        label={host.enabled ? 'On' : 'Off'}
        isChecked={!!host.enabled}
        isDisabled={busy || !host.summary_fields?.user_capabilities?.edit}
        onChange={(_e, checked) => void toggle(checked)}
      />
      <ErrorAlert error={error} title={`${name} not changed`} />
    </>
  );
}
