import { useState } from 'react';
import { Alert, Button } from '@patternfly/react-core';
import { HeartbeatIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { api, must } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';

/**
 * "Run health check" (POST instances/{id}/health_check/, as AWX's console) for those who may change
 * the instance; not offered on control nodes, which AWX does not check. Disabled while one is pending.
 */
export function HealthCheckButton({ instance, variant }: { instance: ResourceObject<'instances'>; variant: 'row' | 'detail' }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState<string | null>(null);
  if (!instance.summary_fields?.user_capabilities?.edit || instance.node_type === 'control') return null;
  const pending = !!instance.health_check_pending;
  const run = async () => {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      const answer = await must(api.POST('/api/v2/instances/{id}/health_check/', { params: { path: { id: String(instance.id) } } }));
      setMessage(answer.msg);
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
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
