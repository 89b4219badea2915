import { useState } from 'react';
import { Button, Modal, ModalBody, ModalHeader } from '@patternfly/react-core';
import { TerminalIcon } from '@patternfly/react-icons';
import { useNavigate } from 'react-router';
import type { ResourceObject } from '../../api/types';
import { ResourceForm } from '../../components/ResourceForm';
import { resourceConfig } from '../../resources/registry';

/**
 * "Run command" on an inventory, a host or a group (user_capabilities.adhoc): an ad hoc command on
 * the object's hosts, posted to its ad_hoc_commands/ list; then straight to the command's output.
 */
export default function RunCommandAction({ object, variant }: { object: ResourceObject<'inventories' | 'hosts'>; variant: 'row' | 'detail' }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const config = resourceConfig('ad_hoc_commands');
  if (!object.summary_fields?.user_capabilities?.adhoc || !config || !object.related?.ad_hoc_commands) return null;
  const name = String(object.name ?? `#${object.id}`);
  return (
    <>
      <Button variant={variant === 'detail' ? 'secondary' : 'plain'} icon={<TerminalIcon />} aria-label={variant === 'row' ? `Run a command on ${name}` : undefined} onClick={() => setOpen(true)}>
        {variant === 'detail' ? 'Run command' : null}
      </Button>
      <Modal isOpen={open} onClose={() => setOpen(false)} variant="medium" aria-labelledby="run-command-title">
        <ModalHeader title={`Run a command on ${name}`} labelId="run-command-title" />
        <ModalBody>
          {open && (
            <ResourceForm
              config={config}
              createUrl={object.related.ad_hoc_commands}
              hidden={['inventory']}
              initial={{ inventory: object.type === 'inventory' ? object.id : object.inventory, limit: object.type === 'inventory' ? 'all' : name }}
              onSaved={(command) => navigate(`/ad_hoc_commands/${command.id}`)}
            />
          )}
        </ModalBody>
      </Modal>
    </>
  );
}
