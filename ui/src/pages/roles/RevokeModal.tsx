import { useState } from 'react';
import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { ErrorAlert } from '../../components/ErrorAlert';

/** Asks before a role is taken away; shows the API's refusal instead of closing. */
export function RevokeModal({ what, onConfirm, onClose }: { what: { role: string; holder: string; object: string } | null; onConfirm: () => Promise<void>; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal isOpen={!!what} onClose={close} variant="small" aria-labelledby="revoke-title">
      <ModalHeader title="Remove role?" labelId="revoke-title" titleIconVariant="warning" />
      <ModalBody>
        {what && <>This takes the role <strong>{what.role}</strong> of {what.object} away from {what.holder}.</>}
        <ErrorAlert error={error} title="Not removed" />
      </ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={confirm} isLoading={busy} isDisabled={busy}>Remove</Button>
        <Button variant="link" onClick={close}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
