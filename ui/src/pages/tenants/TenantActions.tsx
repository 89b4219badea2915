import { useState } from 'react';
import { Button, Tooltip } from '@patternfly/react-core';
import { SyncAltIcon, TrashIcon } from '@patternfly/react-icons';
import { http } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';
import { DeleteTenantModal } from './DeleteTenantModal';
import type { Tenant } from './tenant-types';

/** Recalculate (the usage recomputed now) and Delete (typing the tenant's name first). */
export default function TenantActions({ object, variant }: { object: Tenant; variant: 'row' | 'detail' }) {
  const recalculation = useServerChange();
  const [deleting, setDeleting] = useState(false);
  const caps = object.summary_fields.user_capabilities ?? {};
  const detail = variant === 'detail';
  const recalculate = () => void recalculation.change(() => http.post(object.related.recalculate ?? `${object.url}recalculate/`, {}));
  return (
    <>
      {caps.edit && (
        <Tooltip content={`Recalculate the usage of ${object.name}`}>
          <Button variant={detail ? 'secondary' : 'plain'} aria-label={detail ? undefined : `Recalculate ${object.name}`} icon={<SyncAltIcon />} onClick={recalculate} isLoading={detail && recalculation.busy} isDisabled={recalculation.busy}>
            {detail ? 'Recalculate' : null}
          </Button>
        </Tooltip>
      )}
      {caps.delete && (
        <Button variant={detail ? 'danger' : 'plain'} aria-label={detail ? undefined : `Delete ${object.name}`} icon={<TrashIcon />} onClick={() => setDeleting(true)}>
          {detail ? 'Delete' : null}
        </Button>
      )}
      {recalculation.error ? <ErrorAlert error={recalculation.error} title="Not recalculated" /> : null}
      {deleting && <DeleteTenantModal tenant={object} leavesPage={detail} onClose={() => setDeleting(false)} />}
    </>
  );
}
