import { Checkbox, FormGroup, Grid, GridItem, TextArea, TextInput, Title } from '@patternfly/react-core';

type Pair = { message?: string | null; body?: string | null } | null;
export type Messages = Record<string, unknown> | null;

const EVENTS: [string, string][] = [['started', 'Start'], ['success', 'Success'], ['error', 'Error']];
const APPROVAL_EVENTS: [string, string][] = [['running', 'Approval pending'], ['approved', 'Approved'], ['timed_out', 'Approval timed out'], ['denied', 'Denied']];

/** Whether any event has a message of its own. */
export function hasCustomMessages(messages: Messages): boolean {
  if (!messages) return false;
  const set = (p: unknown) => !!p && typeof p === 'object' && Object.values(p as object).some((v) => typeof v === 'string' && v !== '');
  return Object.entries(messages).some(([event, value]) => (event === 'workflow_approval' ? Object.values((value ?? {}) as object).some(set) : set(value)));
}

/** Optional messages per event (a one-line subject and a body); left empty, the defaults are sent. */
export function CustomMessages({ enabled, onEnable, messages, onChange, error }: {
  enabled: boolean;
  onEnable: (on: boolean) => void;
  messages: Messages;
  onChange: (messages: Messages) => void;
  error?: string;
}) {
  const all = (messages ?? {}) as Record<string, unknown>;
  const approval = (all.workflow_approval ?? {}) as Record<string, Pair>;
  const setPair = (event: string, sub: string | null, part: 'message' | 'body', text: string) => {
    const next = { ...all };
    if (sub) {
      const group = { ...approval, [sub]: { ...(approval[sub] ?? {}), [part]: text || null } };
      next.workflow_approval = group;
    } else next[event] = { ...((all[event] ?? {}) as object), [part]: text || null };
    onChange(next);
  };
  const pairInputs = (key: string, label: string, pair: Pair, event: string, sub: string | null) => (
    <GridItem key={key} span={12}>
      <FormGroup label={`${label} message`} fieldId={`message-${key}`}>
        <TextInput id={`message-${key}`} value={pair?.message ?? ''} onChange={(_e, v) => setPair(event, sub, 'message', v)} />
      </FormGroup>
      <FormGroup label={`${label} body`} fieldId={`body-${key}`}>
        <TextArea id={`body-${key}`} className="drover-mono" value={pair?.body ?? ''} onChange={(_e, v) => setPair(event, sub, 'body', v)} resizeOrientation="vertical" />
      </FormGroup>
    </GridItem>
  );
  return (
    <section aria-label="Custom messages">
      <Checkbox id="custom-messages" label="Customize messages" isChecked={enabled} onChange={(_e, on) => onEnable(on)} description="Templates may use {{ job.name }}, {{ job.status }} and the other fields of the run." />
      {error && <div className="pf-v6-c-helper-text__item pf-m-error" role="alert" style={{ color: 'var(--pf-t--global--text--color--status--danger--default)' }}>{error}</div>}
      {enabled && (
        <>
          <Title headingLevel="h3" size="md" style={{ margin: '1rem 0 0.5rem' }}>Messages</Title>
          <Grid hasGutter>
            {EVENTS.map(([event, label]) => pairInputs(event, label, all[event] as Pair, event, null))}
            {APPROVAL_EVENTS.map(([sub, label]) => pairInputs(`approval-${sub}`, label, approval[sub] ?? null, 'workflow_approval', sub))}
          </Grid>
        </>
      )}
    </section>
  );
}
