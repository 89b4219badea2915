import { Button } from '@patternfly/react-core';
import { PauseIcon, PlayIcon } from '@patternfly/react-icons';
import type { ResourceObject } from '../api/types';
import { ErrorAlert } from './ErrorAlert';
import { usePostAction } from '../hooks/use-post-action';

/** Enable or Disable of an object with enable/ and disable/ actions (alert and event rules, policies, scanners), for those who may change it. */
export default function EnableDisableAction({ object, variant }: { object: ResourceObject<'drift_alert_rules' | 'event_rules' | 'policies' | 'scanners'>; variant: 'row' | 'detail' }) {
  const { busy, error, post } = usePostAction();
  if (!object.summary_fields?.user_capabilities?.edit) return null;
  const action = object.enabled ? 'disable' : 'enable';
  const label = object.enabled ? 'Disable' : 'Enable';

  const toggle = () => post(object.related?.[action] ?? `${object.url}${action}/`);
  const compact = variant === 'row';
  return (
    <>
      <Button
        variant="secondary"
        size={compact ? 'sm' : 'default'}
        icon={object.enabled ? <PauseIcon /> : <PlayIcon />}
        isDisabled={busy}
        onClick={toggle}
        aria-label={`${label} ${String(object.name)}`}
      >
        {label}
      </Button>
      <ErrorAlert error={error} title={`Not ${action}d`} />
    </>
  );
}
