import { useState } from 'react';
import { Button, Flex, FlexItem } from '@patternfly/react-core';
import { PaperPlaneIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import { objectUrl } from '../../api/object-url';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { StatusLabel } from '../../components/cells';

interface TestAnswer {
  status: number | null;
  ok: boolean;
  error: string;
}

/** Sends a test delivery, for those who may edit the webhook, and shows what its URL answered. */
export default function SendTestAction({ object, variant }: { object: ResourceObject<'outbound_webhooks'>; variant: 'row' | 'detail' }) {
  const queryClient = useQueryClient();
  const [answer, setAnswer] = useState<TestAnswer | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (!object.summary_fields?.user_capabilities?.edit) return null;
  const name = String(object.name ?? '');

  const send = async () => {
    setBusy(true);
    setFailure(null);
    setAnswer(null);
    try {
      setAnswer(await http.post<TestAnswer>(object.related?.test ?? `${objectUrl(object)}test/`, {}));
      await queryClient.invalidateQueries();
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };
  const detail = variant === 'detail';
  const summary = answer && (answer.status === null ? 'no answer' : `HTTP ${answer.status}`);

  return (
    <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }}>
      {answer && (
        <FlexItem aria-live="polite" data-test-answer={answer.ok ? 'ok' : 'failed'} title={answer.error || summary || undefined}>
          <StatusLabel status={answer.ok ? 'sent' : 'failed'} />{' '}
          {answer.ok || !detail ? summary : <span data-test-error>{answer.error}</span>}
        </FlexItem>
      )}
      <FlexItem>
        <Button variant={detail ? 'secondary' : 'plain'} icon={<PaperPlaneIcon />} aria-label={`Send test to ${name}`} onClick={send} isLoading={busy} isDisabled={busy}>
          {detail ? 'Send test' : null}
        </Button>
      </FlexItem>
      {failure ? <FlexItem><ErrorAlert error={failure} title="Test not sent" /></FlexItem> : null}
    </Flex>
  );
}
