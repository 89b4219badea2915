import type { AnyResource } from '../../api/types';
import { UpdateButton } from '../../components/UpdateButton';
import { StatusLabel } from '../../components/cells';
import { Link } from 'react-router';

/** Sync of a project from source control, for those who may update it, with its last sync's status. */
export default function ProjectActions({ object, variant }: { object: AnyResource; variant: 'row' | 'detail' }) {
  const last = object.summary_fields?.last_update as { id?: number; status?: string } | undefined;
  if (object.scm_type === '' || object.scm_type === 'manual') return null;
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
