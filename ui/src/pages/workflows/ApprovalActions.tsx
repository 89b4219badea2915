import { Button } from '@patternfly/react-core';
import { CheckIcon, TimesIcon } from '@patternfly/react-icons';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { usePostAction } from '../../hooks/use-post-action';

/**
 * Approve and deny of a workflow approval, shown while it waits and only to those the API says may
 * answer it (can_approve_or_deny: the workflow's approval_role, and still pending).
 */
export default function ApprovalActions({ object, variant }: { object: ResourceObject<'workflow_approvals'>; variant: 'row' | 'detail' }) {
  const { busy, error, post } = usePostAction();
  if (object.status !== 'pending' || object.can_approve_or_deny !== true) return null;
  const name = String(object.name ?? `approval ${object.id}`);

  const answer = (action: 'approve' | 'deny') => post(object.related[action] ?? `${object.url}${action}/`);
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
