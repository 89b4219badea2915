import { useState } from 'react';
import { Link } from 'react-router';
import { Button, Flex, FlexItem, Tooltip } from '@patternfly/react-core';
import { PaperPlaneIcon } from '@patternfly/react-icons';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { StatusLabel } from '../../components/cells';

/** Sends a test notification from the template, then shows how the sending went. */
export default function NotificationTestAction({ object, variant }: { object: ResourceObject<'notification_templates'>; variant: 'row' | 'detail' }) {
  const [sent, setSent] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const url = sent ? `/api/v2/notifications/${sent}/` : undefined;
  const notification = useQuery({
    queryKey: [url],
    queryFn: () => http.get<ResourceObject<'notification_templates'>>(url!),
    enabled: !!url,
    refetchInterval: (q) => (!q.state.data || q.state.data.status === 'pending' ? 1_000 : false),
  });
  if (!object.summary_fields?.user_capabilities?.edit) return null;
  const name = String(object.name ?? '');

  const test = async () => {
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      const answer = await http.post<{ notification: number }>(object.related?.test ?? `${object.url}test/`, {});
      setSent(answer.notification);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const status = notification.data?.status as string | undefined;
  const problem = notification.data?.error ? String(notification.data.error) : '';

  return (
    <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }}>
      {sent && (
        <FlexItem>
          <Tooltip content={problem || `Test notification ${status ?? 'pending'}`}>
            <Link to={`/notifications/${sent}`} aria-label={`Test notification ${status ?? 'pending'}`} data-test-status={status ?? 'pending'}>
              <StatusLabel status={status ?? 'pending'} />
            </Link>
          </Tooltip>
        </FlexItem>
      )}
      <FlexItem>
        <Button variant={variant === 'detail' ? 'secondary' : 'plain'} icon={<PaperPlaneIcon />} aria-label={`Test ${name}`} onClick={test} isLoading={busy} isDisabled={busy}>
          {variant === 'detail' ? 'Test' : null}
        </Button>
      </FlexItem>
      {error ? <FlexItem><ErrorAlert error={error} title="Test not sent" /></FlexItem> : null}
      {variant === 'detail' && problem && <FlexItem className="drover-hide-narrow">{problem}</FlexItem>}
    </Flex>
  );
}
