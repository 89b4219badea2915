import { useState } from 'react';
import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import type { Run } from './run-kinds';
import { ErrorAlert } from '../../components/ErrorAlert';

export function CancelRunModal({ run, onCancel, onClose }: { run: Run; onCancel: () => Promise<void>; onClose: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onCancel();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="cancel-run-title">
      <ModalHeader title={`Cancel ${String(run.name ?? `#${run.id}`)}?`} labelId="cancel-run-title" titleIconVariant="warning" />
      <ModalBody>
        The run stops where it is; what it has done stays done.
        <ErrorAlert error={error} title="Could not cancel" />
      </ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={confirm} isLoading={busy} isDisabled={busy}>
          Cancel run
        </Button>
        <Button variant="link" onClick={onClose}>
          Keep running
        </Button>
      </ModalFooter>
    </Modal>
  );
}
