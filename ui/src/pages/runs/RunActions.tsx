import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Button, Dropdown, DropdownItem, DropdownList, Flex, MenuToggle } from '@patternfly/react-core';
import { RedoIcon, StopCircleIcon } from '@patternfly/react-icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { Run } from './run-kinds';
import { runPath } from '../../resources/run-paths';
import { ErrorAlert } from '../../components/ErrorAlert';
import { failedHostCount, relaunch, relaunchNeeds, relaunchUrl, type RelaunchHosts } from './relaunch';
import { isActive } from './run-kinds';
import { CancelRunModal } from './CancelRunModal';
import { PasswordsModal } from './PasswordsModal';

/**
 * Cancel (while the run is active and the service says it may be canceled) and relaunch: buttons on
 * the run's page, icons on a row of a list of runs.
 */
export function RunActions({ run, variant = 'detail' }: { run: Run; variant?: 'row' | 'detail' }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [prompt, setPrompt] = useState<{ hosts: RelaunchHosts; passwords: string[] } | null>(null);
  const active = isActive(run);
  const cancelUrl = run.related.cancel;
  const canCancel = useQuery({
    queryKey: [cancelUrl, run.status],
    queryFn: () => http.get<{ can_cancel: boolean }>(cancelUrl!),
    enabled: active && !!cancelUrl,
    retry: false,
  });
  const mayRelaunch = !!run.summary_fields.user_capabilities?.start && !!relaunchUrl(run);
  const failedHosts = run.type === 'job' && !active && variant === 'detail' ? failedHostCount(run) : 0;
  const name = String(run.name ?? `#${run.id}`);
  const row = variant === 'row';

  const start = async (hosts: RelaunchHosts, passwords?: Record<string, string>) => {
    setMenuOpen(false);
    setBusy(true);
    setError(null);
    try {
      if (!passwords) {
        const needed = await relaunchNeeds(run);
        if (needed.length) return setPrompt({ hosts, passwords: needed });
      }
      const created = await relaunch(run, hosts, passwords);
      setPrompt(null);
      navigate(runPath(created));
    } catch (err) {
      if (passwords) throw err;
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const cancel = async () => {
    await http.post(cancelUrl!);
    setConfirmCancel(false);
    await queryClient.invalidateQueries({ queryKey: [run.url] });
  };

  return (
    <Flex direction={{ default: 'column' }} alignItems={{ default: 'alignItemsFlexEnd' }} spaceItems={{ default: 'spaceItemsSm' }}>
      <Flex spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }}>
        {active && canCancel.data?.can_cancel && (
          <Button variant={row ? 'plain' : 'danger'} aria-label={row ? `Cancel ${name}` : undefined} icon={<StopCircleIcon />} onClick={() => setConfirmCancel(true)}>
            {row ? null : 'Cancel'}
          </Button>
        )}
        {mayRelaunch && failedHosts === 0 && (
          <Button variant={row ? 'plain' : 'secondary'} aria-label={row ? `Relaunch ${name}` : undefined} icon={<RedoIcon />} isLoading={busy && !row} isDisabled={busy} onClick={() => void start('all')}>
            {row ? null : 'Relaunch'}
          </Button>
        )}
        {mayRelaunch && failedHosts > 0 && (
          <Dropdown
            isOpen={menuOpen}
            onOpenChange={setMenuOpen}
            popperProps={{ position: 'right' }}
            toggle={(ref) => (
              <MenuToggle ref={ref} icon={<RedoIcon />} isExpanded={menuOpen} isDisabled={busy} onClick={() => setMenuOpen(!menuOpen)}>
                Relaunch
              </MenuToggle>
            )}
          >
            <DropdownList>
              <DropdownItem onClick={() => void start('all')} description="Every host the job ran on">
                Relaunch on all hosts
              </DropdownItem>
              <DropdownItem onClick={() => void start('failed')} description={`${failedHosts} failed or unreachable host${failedHosts === 1 ? '' : 's'}`}>
                Relaunch on failed hosts
              </DropdownItem>
            </DropdownList>
          </Dropdown>
        )}
      </Flex>
      <ErrorAlert error={error} title="Could not relaunch" />
      {confirmCancel && <CancelRunModal run={run} onCancel={cancel} onClose={() => setConfirmCancel(false)} />}
      {prompt && <PasswordsModal names={prompt.passwords} onSubmit={(values) => start(prompt.hosts, values)} onClose={() => setPrompt(null)} />}
    </Flex>
  );
}
