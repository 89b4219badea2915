import { Link } from 'react-router';
import type { ResourceObject } from '../api/types';
import { objectPath } from '../resources/run-paths';

/** The objects of an activity entry, linked to their pages: "job template #6 → credential #1". */
export function ActivityObjects({ entry }: { entry: ResourceObject<'activity_stream'> }) {
  const changes = (entry.changes ?? {}) as { name?: unknown; username?: unknown };
  const name = changes.name ?? changes.username;
  const one = (type: unknown, id: unknown, label?: unknown) => {
    const text = `${String(type).replace(/_/g, ' ')} ${label ? String(label) : `#${String(id)}`}`;
    return entry.operation === 'delete' || !id ? <span>{text}</span> : <Link to={objectPath(String(type), Number(id))}>{text}</Link>;
  };
  return (
    <>
      {one(entry.object1, entry.object1_id, name)}
      {entry.object2 ? <> → {one(entry.object2, entry.object2_id)}</> : null}
    </>
  );
}
