import { useState } from 'react';
import { Button } from '@patternfly/react-core';
import { CheckIcon, TimesIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ApiObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';

/**
 * Approve and deny of a workflow approval, shown while it waits and only to those the API says may
 * answer it (can_approve_or_deny: the workflow's approval_role, and still pending).
 */
export default function ApprovalActions({ object, variant }: { object: ApiObject; variant: 'row' | 'detail' }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (object.status !== 'pending' || object.can_approve_or_deny !== true) return null;
  const name = String(object.name ?? `approval ${object.id}`);

  const answer = async (action: 'approve' | 'deny') => {
    setBusy(true);
    setError(null);
    try {
      await http.post(object.related[action] ?? `${object.url}${action}/`, {});
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const compact = variant === 'row';
  return (
    <>
      <Button variant={compact ? 'secondary' : 'primary'} size={compact ? 'sm' : 'default'} icon={<CheckIcon />} isDisabled={busy} onClick={() => answer('approve')} aria-label={`Approve ${name}`}>
        Approve
      </Button>
      <Button variant={compact ? 'secondary' : 'danger'} isDanger={compact} size={compact ? 'sm' : 'default'} icon={<TimesIcon />} isDisabled={busy} onClick={() => answer('deny')} aria-label={`Deny ${name}`}>
        Deny
      </Button>
      <ErrorAlert error={error} title="The answer was not recorded" />
    </>
  );
}
