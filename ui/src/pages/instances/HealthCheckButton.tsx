import { useState } from 'react';
import { Alert, Button } from '@patternfly/react-core';
import { HeartbeatIcon } from '@patternfly/react-icons';
import { api, must } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';

/**
 * "Run health check" (POST instances/{id}/health_check/, as AWX's console) for those who may change
 * the instance; not offered on control nodes, which AWX does not check. Disabled while one is pending.
 */
export function HealthCheckButton({ instance, variant }: { instance: ResourceObject<'instances'>; variant: 'row' | 'detail' }) {
  const { busy, error, change } = useServerChange();
  const [message, setMessage] = useState<string | null>(null);
  if (!instance.summary_fields?.user_capabilities?.edit || instance.node_type === 'control') return null;
  const pending = !!instance.health_check_pending;
  const run = async () => {
    setMessage(null);
    const answer = await change(() => must(api.POST('/api/v2/instances/{id}/health_check/', { params: { path: { id: String(instance.id) } } })));
    if (answer) setMessage(answer.msg);
  };
  return (
    <>
      <Button
        variant={variant === 'detail' ? 'secondary' : 'plain'}
        icon={<HeartbeatIcon />}
        aria-label={variant === 'row' ? `Run health check on ${instance.hostname}` : undefined}
        isDisabled={busy || pending}
        isLoading={busy}
        onClick={run}
      >
        {variant === 'detail' ? (pending ? 'Health check running' : 'Run health check') : null}
      </Button>
      {message && variant === 'detail' && <Alert variant="info" isInline isPlain title={message} />}
      <ErrorAlert error={error} title="Health check not started" />
    </>
  );
}
