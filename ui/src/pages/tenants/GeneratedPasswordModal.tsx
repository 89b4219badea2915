import { Alert, Button, ClipboardCopy, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';

/** The admin password provisioning generated: the API answers it once, so it is shown once, to copy. */
export function GeneratedPasswordModal({ tenant, onClose }: { tenant: { name: string; admin_password?: string }; onClose: () => void }) {
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="tenant-password-title">
      <ModalHeader title={`Tenant ${tenant.name} provisioned`} labelId="tenant-password-title" />
      <ModalBody>
        <Alert variant="warning" isInline isPlain title="Copy the admin's password now: it is not shown again." />
        <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" textAriaLabel="Generated admin password">
          {tenant.admin_password ?? ''}
        </ClipboardCopy>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={onClose}>Done</Button>
      </ModalFooter>
    </Modal>
  );
}
