import { Button } from '@patternfly/react-core';
import { CheckIcon } from '@patternfly/react-icons';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { usePostAction } from '../../hooks/use-post-action';

/** Marks drift as reviewed, shown while it is not and only to those the API lets (the inventory's admins). */
export default function AcknowledgeAction({ object, variant }: { object: ResourceObject<'drift_detections'>; variant: 'row' | 'detail' }) {
  const { busy, error, post } = usePostAction();
  if (object.acknowledged || !object.summary_fields?.user_capabilities?.acknowledge) return null;
  const host = (object.summary_fields.host as { name?: string } | undefined)?.name ?? `host ${String(object.host)}`;

  const acknowledge = () => post(object.related?.acknowledge ?? `${object.url}acknowledge/`);
  const label = `Acknowledge ${String(object.fact_path)} on ${host}`;
  return (
    <>
      {variant === 'row' ? (
        <Button variant="plain" icon={<CheckIcon />} isDisabled={busy} onClick={acknowledge} aria-label={label} title={label} />
      ) : (
        <Button variant="primary" icon={<CheckIcon />} isDisabled={busy} onClick={acknowledge}>Acknowledge</Button>
      )}
      <ErrorAlert error={error} title="Not acknowledged" />
    </>
  );
}
