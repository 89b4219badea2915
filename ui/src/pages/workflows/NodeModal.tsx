import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Checkbox, Form, FormGroup, FormHelperText, FormSelect, FormSelectOption, HelperText, HelperTextItem, Modal, ModalBody, ModalFooter, ModalHeader, TextArea, TextInput } from '@patternfly/react-core';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { SCHEDULE_PROMPTS, SchedulePrompts } from '../schedules/SchedulePrompts';
import { ScheduleRelated } from '../schedules/ScheduleRelated';
import { SyncError } from '../templates/form/related-lists';
import { syncMessage } from '../templates/form/sync-message';
import { placeSurveyMessages } from '../templates/survey/survey-types';
import { NODE_LISTS } from './node-launch-config';
import { useNodeConfig } from './use-node-config';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { useObject } from '../../hooks/api-hooks';
import type { NodeChoice } from './workflow-api';
import { EDGE_KINDS, EDGE_LABELS, NODE_KINDS, kindOf, nodeName, templateOf, type EdgeKind, type NodeKind, type TemplateNode } from './workflow-graph';

/** Fields whose messages the dialog shows under them (the prompts' among them). */
const SHOWN_FIELDS = new Set(['name', 'description', 'timeout', 'unified_job_template', 'extra_data', 'variables_needed_to_start', ...NODE_LISTS, ...SCHEDULE_PROMPTS.map(([f]) => f)]);

/** The API's 400 by field, survey answers' messages on their questions (`survey.<variable>`). */
function placedMessages(err: ApiError, spec: Parameters<typeof placeSurveyMessages>[0]): Record<string, string> {
  const placed: Record<string, string> = {};
  for (const [field, message] of Object.entries(err.fieldErrors)) {
    const raw = (err.body as Record<string, unknown> | undefined)?.[field];
    if (field === 'variables_needed_to_start' && Array.isArray(raw)) {
      const { placed: onQuestions, rest } = placeSurveyMessages(spec, raw.map(String));
      for (const [v, text] of Object.entries(onQuestions)) placed[`survey.${v}`] = text;
      if (rest.length) placed[field] = rest.join(' ');
    } else placed[field] = message;
  }
  return placed;
}

export interface NodePlacement {
  parent: number | null;
  edge: EdgeKind;
}

/** Adds a node (with where it goes) or edits one: its kind, its template or approval, convergence, and what its template asks at launch. */
export function NodeModal({ node, nodes, initialParent, workflowId, onSubmit, onClose }: {
  /** The node edited; adding when absent. */
  node?: TemplateNode;
  nodes: TemplateNode[];
  initialParent: number | null;
  workflowId: number;
  onSubmit: (choice: NodeChoice, placement: NodePlacement) => Promise<void>;
  onClose: () => void;
}) {
  const editing = !!node;
  const [kind, setKind] = useState<NodeKind>((node && kindOf(node)) || 'job');
  const [template, setTemplate] = useState<number | null>(node && kindOf(node) !== 'workflow_approval' ? templateOf(node)?.id ?? null : null);
  const [converge, setConverge] = useState(!!node?.all_parents_must_converge);
  const [parent, setParent] = useState<number | null>(initialParent);
  const [edge, setEdge] = useState<EdgeKind>('success');
  const [approval, setApproval] = useState<NodeChoice['approval'] | null>(node && kindOf(node) === 'workflow_approval' ? null : { name: '', description: '', timeout: 0 });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const config = useNodeConfig(node, kind, kind === 'workflow_approval' ? null : template);
  const approvalTemplate = useObject(approval === null ? node?.related.unified_job_template : undefined);
  const shownApproval = approval ?? {
    name: String(approvalTemplate.data?.name ?? templateOf(node!)?.name ?? ''),
    description: String(approvalTemplate.data?.description ?? ''),
    timeout: Number(approvalTemplate.data?.timeout ?? 0),
  };
  const fieldErrors = errors;
  // Messages of fields this form shows go under them; anything else in the alert.
  const unplaced = Object.keys(fieldErrors).length === 0 || Object.keys(fieldErrors).some((f) => !SHOWN_FIELDS.has(f) && !f.startsWith('survey.'));
  const kindInfo = NODE_KINDS.find((k) => k.key === kind)!;

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    const built = kind === 'workflow_approval' ? { problems: {} } : config.build();
    setErrors(built.problems);
    setError(null);
    if (Object.keys(built.problems).length) return;
    setBusy(true);
    try {
      await onSubmit({ kind, template, converge, approval: shownApproval, config: 'config' in built ? built.config : undefined }, { parent, edge });
    } catch (err) {
      if (err instanceof SyncError) {
        setErrors({ [err.list]: syncMessage(err.list, err.cause) });
        await config.reloadBaseline().catch(() => undefined);
      } else {
        setErrors(err instanceof ApiError && err.status === 400 ? placedMessages(err, config.source.spec) : {});
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };

  const missing = kind === 'workflow_approval' ? !shownApproval.name.trim() : !template;
  return (
    <Modal isOpen onClose={onClose} variant={config.templateUrl ? 'large' : 'medium'} aria-labelledby="node-modal-title">
      <ModalHeader title={editing ? `Edit ${nodeName(node!)}` : 'Add a node'} labelId="node-modal-title" />
      <ModalBody>
        <Form id="node-form" onSubmit={submit}>
          {!editing && (
            <>
              <FormGroup label="After" fieldId="node-parent">
                <FormSelect id="node-parent" value={parent === null ? '' : String(parent)} onChange={(_e, v) => setParent(v === '' ? null : Number(v))}>
                  <FormSelectOption value="" label="Start (a first node)" />
                  {nodes.map((n) => (
                    <FormSelectOption key={n.id} value={String(n.id)} label={`${nodeName(n)} (#${n.id})`} />
                  ))}
                </FormSelect>
              </FormGroup>
              {parent !== null && (
                <FormGroup label="Run" fieldId="node-edge">
                  <FormSelect id="node-edge" value={edge} onChange={(_e, v) => setEdge(v as EdgeKind)}>
                    {EDGE_KINDS.map((k) => (
                      <FormSelectOption key={k} value={k} label={EDGE_LABELS[k]} />
                    ))}
                  </FormSelect>
                </FormGroup>
              )}
            </>
          )}
          <FormGroup label="Node type" fieldId="node-kind">
            <FormSelect id="node-kind" value={kind} onChange={(_e, v) => { setKind(v as NodeKind); setTemplate(null); }}>
              {NODE_KINDS.map((k) => (
                <FormSelectOption key={k.key} value={k.key} label={k.label} />
              ))}
            </FormSelect>
          </FormGroup>
          {kind === 'workflow_approval' ? (
            <>
              <Field id="approval-name" label="Approval name" required error={fieldErrors.name}>
                <TextInput id="approval-name" isRequired value={shownApproval.name} onChange={(_e, v) => setApproval({ ...shownApproval, name: v })} validated={fieldErrors.name ? 'error' : 'default'} />
              </Field>
              <Field id="approval-description" label="Description" error={fieldErrors.description}>
                <TextArea id="approval-description" value={shownApproval.description} onChange={(_e, v) => setApproval({ ...shownApproval, description: v })} autoResize />
              </Field>
              <Field id="approval-timeout" label="Timeout (seconds, 0 for none)" error={fieldErrors.timeout}>
                <TextInput id="approval-timeout" type="number" min={0} value={String(shownApproval.timeout)} onChange={(_e, v) => setApproval({ ...shownApproval, timeout: Number(v) || 0 })} validated={fieldErrors.timeout ? 'error' : 'default'} />
              </Field>
            </>
          ) : (
            <Field id="node-template" label={kindInfo.label} required error={fieldErrors.unified_job_template}>
              <ReferenceSelect
                key={kind}
                id="node-template"
                label={kindInfo.label}
                listUrl={kindInfo.list}
                value={template}
                onChange={setTemplate}
                query={kind === 'workflow_job' ? { not__id: workflowId } : {}}
                validated={fieldErrors.unified_job_template ? 'error' : 'default'}
              />
            </Field>
          )}
          <FormGroup fieldId="node-converge">
            <Checkbox
              id="node-converge"
              label="All parents must converge"
              description="Run only when every parent has reached this node, instead of when any one has."
              isChecked={converge}
              onChange={(_e, checked) => setConverge(checked)}
            />
          </FormGroup>
          {kind !== 'workflow_approval' && config.templateUrl && (config.source.loading ? (
            <Loading label="Loading the template's prompts" />
          ) : config.source.error ? (
            <ErrorAlert error={config.source.error} title="Could not load the template's prompts" />
          ) : (
            <>
              <ScheduleRelated lists={config.lists} chosen={config.chosen} onChange={config.setChosen} organization={config.organization} errors={fieldErrors} note="The node’s run uses these instead of the template’s." />
              <SchedulePrompts templateUrl={config.templateUrl} description={config.source.description} spec={config.source.spec} takesDays={false} values={config.prompts} onChange={config.setPrompts} errors={fieldErrors} />
            </>
          ))}
          {error && unplaced ? <ErrorAlert error={error} title={editing ? 'Could not save the node' : 'Could not add the node'} /> : null}
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button type="submit" form="node-form" isDisabled={busy || missing} isLoading={busy}>
          {editing ? 'Save' : 'Add'}
        </Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}

function Field({ id, label, required, error, children }: { id: string; label: string; required?: boolean; error?: string; children: ReactNode }) {
  return (
    <FormGroup label={label} fieldId={id} isRequired={required}>
      {children}
      {error ? (
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant="error">{error}</HelperTextItem>
          </HelperText>
        </FormHelperText>
      ) : null}
    </FormGroup>
  );
}
