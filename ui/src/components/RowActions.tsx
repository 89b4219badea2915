import { Suspense, useState } from 'react';
import { useNavigate } from 'react-router';
import { Button, Modal, ModalBody, ModalFooter, ModalHeader, Flex } from '@patternfly/react-core';
import { PencilAltIcon, TrashIcon, CopyIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';
import type { AnyResource } from '../api/types';
import type { ResourceConfig } from '../resources/types';
import { lazyOnce } from './lazy-cache';
import { ErrorAlert } from './ErrorAlert';
import { objectUrl } from '../api/object-url';

const displayName = (o: AnyResource) => String(o.name ?? o.username ?? o.hostname ?? `#${o.id}`);

/** Edit, copy and delete as the object's user_capabilities allow, plus the resource's own actions. */
export function RowActions({ config, object, listUrl, variant = 'row' }: { config: ResourceConfig; object: AnyResource; listUrl?: string; variant?: 'row' | 'detail' }) {
  const caps = object.summary_fields?.user_capabilities ?? {};
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const Extra = config.actions ? lazyOnce(config.actions) : null;
  const label = displayName(object);

  const remove = async () => {
    try {
      await http.delete(objectUrl(object));
      setConfirming(false);
      await queryClient.invalidateQueries();
      if (variant === 'detail') navigate(`/${config.key}`);
    } catch (err) {
      setError(err);
    }
  };
  const copy = async () => {
    try {
      const copied = await http.post<AnyResource>(`${objectUrl(object)}copy/`, { name: `${label} @ ${new Date().toLocaleTimeString()}` });
      await queryClient.invalidateQueries({ queryKey: [listUrl] });
      navigate(`/${config.key}/${copied.id}`);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Flex spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }} justifyContent={{ default: 'justifyContentFlexEnd' }}>
      {Extra && (
        <Suspense fallback={null}>
          <Extra object={object} variant={variant} />
        </Suspense>
      )}
      {caps.edit && config.creatable !== false && (
        <Button variant={variant === 'detail' ? 'secondary' : 'plain'} aria-label={variant === 'row' ? `Edit ${label}` : undefined} icon={<PencilAltIcon />} onClick={() => navigate(`/${config.key}/${object.id}/edit`)}>
          {variant === 'detail' ? 'Edit' : null}
        </Button>
      )}
      {caps.copy && (
        <Button variant="plain" aria-label={`Copy ${label}`} icon={<CopyIcon />} onClick={copy} />
      )}
      {caps.delete && config.deletable !== false && (
        <Button variant={variant === 'detail' ? 'danger' : 'plain'} aria-label={variant === 'row' ? `Delete ${label}` : undefined} icon={<TrashIcon />} onClick={() => setConfirming(true)}>
          {variant === 'detail' ? 'Delete' : null}
        </Button>
      )}
      <Modal isOpen={confirming} onClose={() => setConfirming(false)} variant="small" aria-labelledby="delete-title">
        <ModalHeader title={`Delete ${label}?`} labelId="delete-title" titleIconVariant="warning" />
        <ModalBody>
          This deletes the {config.singular.toLowerCase()} {label}.
          <ErrorAlert error={error} />
        </ModalBody>
        <ModalFooter>
          <Button variant="danger" onClick={remove}>Delete</Button>
          <Button variant="link" onClick={() => setConfirming(false)}>Cancel</Button>
        </ModalFooter>
      </Modal>
      {!confirming && error ? <ErrorAlert error={error} /> : null}
    </Flex>
  );
}
