import { useState, type FormEvent } from 'react';
import { Button, Form, FormGroup, FormSelect, FormSelectOption, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { ErrorAlert } from '../../components/ErrorAlert';
import { EDGE_KINDS, EDGE_LABELS, type EdgeKind } from './workflow-graph';
import { edgeErrorMessage } from './edge-error';

/** Picks when the target runs after the source (success, failure, always), then links them. */
export function LinkModal({ from, to, onSubmit, onClose }: { from: string; to: string; onSubmit: (kind: EdgeKind) => Promise<void>; onClose: () => void }) {
  const [kind, setKind] = useState<EdgeKind>('success');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(kind);
    } catch (err) {
      setError(edgeErrorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="link-modal-title">
      <ModalHeader title="Link nodes" labelId="link-modal-title" description={`${from} → ${to}`} />
      <ModalBody>
        <Form id="link-form" onSubmit={submit}>
          <FormGroup label={`Run ${to}`} fieldId="link-kind">
            <FormSelect id="link-kind" value={kind} onChange={(_e, v) => setKind(v as EdgeKind)}>
              {EDGE_KINDS.map((k) => (
                <FormSelectOption key={k} value={k} label={`${EDGE_LABELS[k]} of ${from}`} />
              ))}
            </FormSelect>
          </FormGroup>
          <ErrorAlert error={error} title="Could not link the nodes" />
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button type="submit" form="link-form" isLoading={busy} isDisabled={busy}>Link</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
