import { Button, Label, DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Modal, ModalBody, ModalFooter, ModalHeader, Title } from '@patternfly/react-core';
import { useQuery } from '@tanstack/react-query';
import { StatusLabel, formatDate } from '../../components/cells';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { AnsiText } from './ansi';
import type { OutputStore } from './output-store';
import { IGNORED_FAILURE, isIgnoredFailure } from './event-outcome';

const outcome = (e: { failed?: boolean; changed?: boolean; event: string }) =>
  e.event === 'runner_on_unreachable' ? 'unreachable' : e.failed ? 'failed' : isIgnoredFailure(e) ? 'failed_ignored' : e.event === 'runner_on_skipped' ? 'skipped' : e.changed ? 'changed' : e.event.startsWith('runner_on') ? 'ok' : '';

/** What one event of the output was: host, task, module, outcome, duration and its result. */
export function EventDetailModal({ store, counter, onClose }: { store: OutputStore; counter: number; onClose: () => void }) {
  const query = useQuery({ queryKey: [store.eventsUrl, 'counter', counter], queryFn: () => store.fullEvent(counter) });
  const event = query.data;
  const data = (event?.event_data ?? {}) as Record<string, unknown>;
  const module = data.resolved_action ?? data.task_action ?? (data.res as Record<string, unknown> | undefined)?.invocation;
  const rows: [string, React.ReactNode][] = event
    ? [
        ['Event', event.event_display ?? event.event],
        ['Host', event.host_name],
        ['Play', event.play],
        ['Task', event.task],
        ['Module', typeof module === 'string' ? module : ''],
        ['Status', outcome(event) === 'failed_ignored' ? <Label color="orange" isCompact data-status="failed_ignored">{IGNORED_FAILURE}</Label> : outcome(event) && <StatusLabel status={outcome(event)} />],
        ['Started', data.start ? formatDate(`${String(data.start)}Z`) : ''],
        ['Duration', typeof data.duration === 'number' ? `${data.duration.toFixed(3)} s` : ''],
        ['Created', formatDate(event.created)],
      ]
    : [];
  const result = data.res;
  return (
    <Modal isOpen onClose={onClose} variant="medium" aria-labelledby="event-detail-title">
      <ModalHeader title={event?.host_name ? `Event on ${event.host_name}` : 'Event'} labelId="event-detail-title" />
      <ModalBody>
        {query.isPending && <Loading label="Loading the event" />}
        <ErrorAlert error={query.error} />
        {event && (
          <>
            <DescriptionList isHorizontal isCompact aria-label="Event details">
              {rows
                .filter(([, value]) => value)
                .map(([term, value]) => (
                  <DescriptionListGroup key={term}>
                    <DescriptionListTerm>{term}</DescriptionListTerm>
                    <DescriptionListDescription data-event-field={term.toLowerCase()}>{value}</DescriptionListDescription>
                  </DescriptionListGroup>
                ))}
            </DescriptionList>
            {result !== undefined && (
              <>
                <Title headingLevel="h3" size="md" style={{ marginTop: '1rem' }}>
                  Result
                </Title>
                <pre className="drover-mono drover-event-json" aria-label="Result JSON" style={{ whiteSpace: 'pre-wrap', maxHeight: '20rem', overflow: 'auto' }}>
                  {JSON.stringify(result, null, 2)}
                </pre>
              </>
            )}
            {event.stdout && (
              <>
                <Title headingLevel="h3" size="md" style={{ marginTop: '1rem' }}>
                  Output
                </Title>
                <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', maxHeight: '12rem', overflow: 'auto' }}>
                  {event.stdout.split(/\r?\n/).map((line, i) => (
                    <div key={i}>
                      <AnsiText text={line} term="" />
                    </div>
                  ))}
                </pre>
              </>
            )}
          </>
        )}
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={onClose}>
          Close
        </Button>
      </ModalFooter>
    </Modal>
  );
}
