import { Switch } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';

/** A scanner's enabled flag as a switch: POSTs enable/ or disable/ for those who may change it, read-only for the others. */
export function ScannerEnabledSwitch({ scanner }: { scanner: ResourceObject<'scanners'> }) {
  const { busy, error, change } = useServerChange();
  const name = String(scanner.name);
  const toggle = (enabled: boolean) => {
    const action = enabled ? 'enable' : 'disable';
    return change(() => http.post(scanner.related?.[action] ?? `${scanner.url}${action}/`, {}));
  };
  return (
    <>
      <Switch
        id={`scanner-enabled-${scanner.id}`}
        aria-label={`${name} enabled`}
        label={scanner.enabled ? 'On' : 'Off'}
        isChecked={!!scanner.enabled}
        isDisabled={busy || !scanner.summary_fields?.user_capabilities?.edit}
        onChange={(_e, checked) => void toggle(checked)}
      />
      <ErrorAlert error={error} title={`${name} not changed`} />
    </>
  );
}
