import { useState } from 'react';
import { Button, Flex, List, ListItem, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { StopCircleIcon, TrashIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import type { Run } from './run-kinds';
import { isActive } from './run-kinds';

type Verb = 'cancel' | 'delete';

/** Which of the selected runs the action applies to, and why each other one is left alone. */
interface Plan {
  doable: Run[];
  refused: [run: Run, reason: string][];
}

const nameOf = (run: Run) => `${run.id} - ${String(run.name ?? '')}`;

/** Cancel asks the service (cancel/'s can_cancel) for each running run; delete reads user_capabilities. */
async function planFor(verb: Verb, runs: Run[]): Promise<Plan> {
  const plan: Plan = { doable: [], refused: [] };
  const checked = await Promise.all(
    runs.map(async (run): Promise<string | null> => {
      if (verb === 'delete') return run.summary_fields.user_capabilities?.delete ? null : isActive(run) ? 'still running' : 'you may not delete it';
      if (!isActive(run)) return 'not running';
      const answer = await http.get<{ can_cancel: boolean }>(run.related.cancel ?? `${run.url}cancel/`).catch(() => ({ can_cancel: false }));
      return answer.can_cancel ? null : 'you may not cancel it';
    }),
  );
  runs.forEach((run, i) => (checked[i] === null ? plan.doable.push(run) : plan.refused.push([run, checked[i]!])));
  return plan;
}

/** Cancel and Delete of the runs selected in a list, each behind a confirmation naming them. */
export default function RunBulkActions({ selected, onDone }: { selected: Run[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [verb, setVerb] = useState<Verb | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const open = async (chosen: Verb) => {
    setVerb(chosen);
    setPlan(null);
    setError(null);
    try {
      setPlan(await planFor(chosen, selected));
    } catch (err) {
      setError(err);
    }
  };
  const close = () => {
    setVerb(null);
    setPlan(null);
  };
  const confirm = async () => {
    if (!plan || !verb) return;
    setBusy(true);
    setError(null);
    const results = await Promise.allSettled(plan.doable.map((run) => (verb === 'cancel' ? http.post(run.related.cancel ?? `${run.url}cancel/`) : http.delete(run.url))));
    await queryClient.invalidateQueries();
    setBusy(false);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) return setError(failed.reason);
    close();
    onDone();
  };

  const title = verb === 'cancel' ? 'Cancel the selected runs?' : 'Delete the selected runs?';
  return (
    <Flex spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }}>
      <Button variant="secondary" icon={<StopCircleIcon />} isDisabled={!selected.length} onClick={() => void open('cancel')}>
        Cancel selected
      </Button>
      <Button variant="secondary" isDanger icon={<TrashIcon />} isDisabled={!selected.length} onClick={() => void open('delete')}>
        Delete selected
      </Button>
      {verb && (
        <Modal isOpen onClose={close} variant="small" aria-labelledby="bulk-run-title">
          <ModalHeader title={title} labelId="bulk-run-title" titleIconVariant="warning" />
          <ModalBody>
            {!plan && !error && <Loading label="Checking the selected runs" />}
            {plan && plan.doable.length > 0 && (
              <div data-testid="bulk-doable">
                {verb === 'cancel' ? 'These runs stop where they are; what they have done stays done:' : 'These runs, their output and events are removed:'}
                <List>
                  {plan.doable.map((run) => <ListItem key={run.id}>{nameOf(run)}</ListItem>)}
                </List>
              </div>
            )}
            {plan && plan.refused.length > 0 && (
              <div data-testid="bulk-refused" style={{ marginTop: '0.75rem' }}>
                {verb === 'cancel' ? 'These cannot be canceled:' : 'These cannot be deleted:'}
                <List>
                  {plan.refused.map(([run, reason]) => <ListItem key={run.id}>{`${nameOf(run)} (${reason})`}</ListItem>)}
                </List>
              </div>
            )}
            <ErrorAlert error={error} title={verb === 'cancel' ? 'Could not cancel' : 'Could not delete'} />
          </ModalBody>
          <ModalFooter>
            <Button variant="danger" onClick={() => void confirm()} isLoading={busy} isDisabled={busy || !plan?.doable.length}>
              {verb === 'cancel' ? `Cancel ${plan?.doable.length ?? ''} run${plan?.doable.length === 1 ? '' : 's'}` : `Delete ${plan?.doable.length ?? ''} run${plan?.doable.length === 1 ? '' : 's'}`}
            </Button>
            <Button variant="link" onClick={close}>
              {verb === 'cancel' ? 'Keep running' : 'Keep them'}
            </Button>
          </ModalFooter>
        </Modal>
      )}
    </Flex>
  );
}
