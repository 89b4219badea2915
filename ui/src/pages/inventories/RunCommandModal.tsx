import { Modal, ModalBody, ModalHeader } from '@patternfly/react-core';
import { useNavigate } from 'react-router';
import { ResourceForm } from '../../components/ResourceForm';
import { resourceConfig } from '../../resources/registry';

/**
 * The ad hoc command form (module, arguments, credential, limit...) from OPTIONS of the list it posts
 * to, the inventory fixed and the limit filled in; once posted, straight to the command's output.
 */
export function RunCommandModal({ title, createUrl, inventory, limit, onClose }: { title: string; createUrl: string; inventory: number; limit: string; onClose: () => void }) {
  const navigate = useNavigate();
  const config = resourceConfig('ad_hoc_commands');
  if (!config) return null;
  return (
    <Modal isOpen onClose={onClose} variant="medium" aria-labelledby="run-command-title">
      <ModalHeader title={title} labelId="run-command-title" />
      <ModalBody>
        <ResourceForm
          config={config}
          createUrl={createUrl}
          hidden={['inventory']}
          initial={{ inventory, limit }}
          onSaved={(command) => navigate(`/ad_hoc_commands/${command.id}`)}
        />
      </ModalBody>
    </Modal>
  );
}
