import { useState } from 'react';
import { Button } from '@patternfly/react-core';
import { CheckIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ApiObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';

/** Marks drift as reviewed, shown while it is not and only to those the API lets (the inventory's admins). */
export default function AcknowledgeAction({ object, variant }: { object: ApiObject; variant: 'row' | 'detail' }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (object.acknowledged || !object.summary_fields?.user_capabilities?.acknowledge) return null;
  const host = (object.summary_fields.host as { name?: string } | undefined)?.name ?? `host ${String(object.host)}`;

  const acknowledge = async () => {
    setBusy(true);
    setError(null);
    try {
      await http.post(object.related?.acknowledge ?? `${object.url}acknowledge/`);
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
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
