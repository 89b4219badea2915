import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { Passkey } from '../../api/passkeys';
import type { Me } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';

/** Asks before deleting a passkey: it no longer signs in, and the last one of a user who must pass a second factor means enrolling again. */
export function DeletePasskeyModal({ passkey, last, me, onClose }: { passkey: Passkey; last: boolean; me: Me; onClose: () => void }) {
  const { busy, error, change } = useServerChange();
  const remove = async () => {
    const done = await change(async () => {
      await http.delete(passkey.url);
      return true;
    });
    if (done) onClose();
  };
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="delete-passkey-title">
      <ModalHeader title={`Delete ${passkey.label}?`} labelId="delete-passkey-title" titleIconVariant="warning" />
      <ModalBody>
        <p>It no longer signs you in, nor passes a second factor. Remove it from the authenticator too (its passkey settings), or it keeps offering it.</p>
        {last && me.second_factor_required && (
          <p>
            It is your last passkey, and an organization you belong to asks for one: after your next password login you will register a new
            one before anything else.
          </p>
        )}
        <ErrorAlert error={error} title="Passkey not deleted" />
      </ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={() => void remove()} isLoading={busy} isDisabled={busy}>Delete</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
