import type { ResourceObject } from '../../api/types';
import { UpdateButton } from '../../components/UpdateButton';
import { StatusLabel } from '../../components/cells';
import { Link } from 'react-router';

/** Sync of a project from source control, for those who may update it, with its last sync's status. */
export default function ProjectActions({ object, variant }: { object: ResourceObject<'projects'>; variant: 'row' | 'detail' }) {
  const last = object.summary_fields?.last_update as { id?: number; status?: string } | undefined;
  // A manual project (scm_type '') has nothing to sync.
  if (object.scm_type === '') return null;
  return (
    <>
      {variant === 'detail' && last?.id && (
        <Link to={`/project_updates/${last.id}`} aria-label="Last sync" style={{ alignSelf: 'center' }}>
          <StatusLabel status={last.status} />
        </Link>
      )}
      <UpdateButton object={object} variant={variant} runType="project_update" />
    </>
  );
}
