import { useState } from 'react';
import { Link } from 'react-router';
import { Button, Flex, FlexItem, Tooltip } from '@patternfly/react-core';
import { SyncAltIcon } from '@patternfly/react-icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';
import type { ResourceObject } from '../api/types';
import { runPath } from '../resources/run-paths';
import { FINAL_STATUSES } from '../pages/runs/run-kinds';
import { ErrorAlert } from './ErrorAlert';
import { StatusLabel } from './cells';

const FINAL = FINAL_STATUSES;

/**
 * Sync of a project or an inventory source (POST update/), offered when user_capabilities.start
 * says so, or else when GET update/ answers can_update; then the run's status until it ends.
 */
export function UpdateButton({ object, variant, runType }: { object: ResourceObject<'projects' | 'inventory_sources'>; variant: 'row' | 'detail'; runType: 'project_update' | 'inventory_update' }) {
  const queryClient = useQueryClient();
  const caps = object.summary_fields?.user_capabilities ?? {};
  const updateUrl = `${object.url}update/`;
  const asked = useQuery({
    queryKey: [updateUrl],
    queryFn: () => http.get<{ can_update: boolean }>(updateUrl),
    enabled: caps.start === undefined,
    staleTime: 30_000,
  });
  const [started, setStarted] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const runUrl = started ? `/api/v2/${runType}s/${started}/` : undefined;
  const run = useQuery({
    queryKey: [runUrl],
    queryFn: () => http.get<ResourceObject<'project_updates' | 'inventory_updates'>>(runUrl!),
    enabled: !!runUrl,
    refetchInterval: (q) => (FINAL.has(String(q.state.data?.status)) ? false : 1_000),
  });
  const allowed = caps.start ?? asked.data?.can_update ?? false;
  const name = String(object.name ?? '');

  const sync = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await http.post<{ id: number }>(updateUrl, {});
      setStarted(answer.id);
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== runUrl });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!allowed && !started) return null;
  const status = run.data?.status;
  return (
    <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }}>
      {started && variant === 'detail' && (
        <FlexItem>
          <Link to={runPath({ id: started, type: runType })} aria-label="Sync status">
            <StatusLabel status={status ?? 'pending'} />
          </Link>
        </FlexItem>
      )}
      {allowed && (
        <FlexItem>
          <Tooltip content={`Sync ${name}`}>
            <Button variant={variant === 'detail' ? 'secondary' : 'plain'} icon={<SyncAltIcon />} aria-label={`Sync ${name}`} onClick={sync} isLoading={busy} isDisabled={busy}>
              {variant === 'detail' ? 'Sync' : null}
            </Button>
          </Tooltip>
        </FlexItem>
      )}
      {error ? <FlexItem><ErrorAlert error={error} title="Not started" /></FlexItem> : null}
    </Flex>
  );
}
