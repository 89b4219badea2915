import { Link } from 'react-router';
import type { ResourceObject } from '../api/types';
import { objectPath } from '../resources/run-paths';

/** What the API's summary_fields.<type> tell of an entry's object (a role tells the object it belongs to). */
interface ObjectSummary {
  id?: number;
  name?: string;
  username?: string;
  resource_name?: string;
  resource_type?: string;
  resource_id?: number;
}

type Entry = ResourceObject<'activity_stream'>;

const typeLabel = (type: string) => type.replace(/_/g, ' ');

function summaryOf(entry: Entry, type: string, id: number | null | undefined): ObjectSummary | undefined {
  const list = (entry.summary_fields as Record<string, unknown>)[type];
  return Array.isArray(list) ? (list as ObjectSummary[]).find((s) => s.id === id) : undefined;
}

/** One object of an entry: its kind and name, linked to its page while it exists ("role Admin of Web servers"). */
function ActivityObject({ entry, type, id, fallbackName }: { entry: Entry; type: string; id: number | null | undefined; fallbackName?: unknown }) {
  const summary = summaryOf(entry, type, id);
  if (type === 'role' && summary?.resource_type && summary.resource_id) {
    return (
      <span>
        {summary.name ?? 'role'} of {typeLabel(summary.resource_type)}{' '}
        <Link to={objectPath(summary.resource_type, summary.resource_id)}>{summary.resource_name ?? `#${summary.resource_id}`}</Link>
      </span>
    );
  }
  const name = summary?.name ?? summary?.username ?? (typeof fallbackName === 'string' ? fallbackName : undefined);
  const text = `${typeLabel(type)} ${name ?? `#${String(id)}`}`;
  return summary && id ? <Link to={objectPath(type, id)}>{text}</Link> : <span>{text}</span>;
}

/** The objects of an activity entry by name, linked to their pages: "user alice → Admin of inventory Web servers". */
export function ActivityObjects({ entry }: { entry: Entry }) {
  const changes = (entry.changes ?? {}) as { name?: unknown; username?: unknown };
  return (
    <>
      <ActivityObject entry={entry} type={String(entry.object1)} id={entry.object1_id} fallbackName={changes.name ?? changes.username} />
      {entry.object2 ? <> → <ActivityObject entry={entry} type={entry.object2} id={entry.object2_id} /></> : null}
    </>
  );
}
