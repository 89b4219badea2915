import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import { Link } from 'react-router';
import type { ApiObject, FieldMeta } from '../api/types';
import { useOptions } from '../hooks/api-hooks';
import { referencedResource } from '../resources/references';
import { formatDate } from './cells';
import { StatusLabel } from './cells';

const INTERNAL = new Set(['id', 'type', 'url', 'related', 'summary_fields']);

/** The fields of an object as OPTIONS labels them; references by name, linked; variables as text. */
export function ResourceDetail({ object, fields }: { object: ApiObject; fields?: string[] }) {
  const options = useOptions(object.url);
  const meta = options.data?.actions?.GET ?? {};
  const names = fields ?? Object.keys(meta).filter((n) => !INTERNAL.has(n) && n in object);
  return (
    <DescriptionList isHorizontal isCompact columnModifier={{ default: '1Col', lg: '2Col' }} aria-label="Details">
      {names.map((name) => (
        <DescriptionListGroup key={name}>
          <DescriptionListTerm>{meta[name]?.label ?? name}</DescriptionListTerm>
          <DescriptionListDescription data-field={name}>
            <Value object={object} name={name} meta={meta[name]} />
          </DescriptionListDescription>
        </DescriptionListGroup>
      ))}
    </DescriptionList>
  );
}

function Value({ object, name, meta }: { object: ApiObject; name: string; meta?: FieldMeta }) {
  const value = object[name];
  const summary = object.summary_fields?.[name] as { id?: number; name?: string } | undefined;
  const reference = referencedResource(name);
  if (summary?.id && reference) return <Link to={`/${reference}/${summary.id}`}>{summary.name ?? `#${summary.id}`}</Link>;
  if (name === 'status') return <StatusLabel status={value} />;
  if (value === null || value === undefined || value === '') return <>–</>;
  if (meta?.type === 'datetime') return <>{formatDate(value)}</>;
  if (meta?.choices) return <>{meta.choices.find(([v]) => v === value)?.[1] ?? String(value)}</>;
  if (typeof value === 'boolean') return <>{value ? 'Yes' : 'No'}</>;
  if (meta?.type === 'json' || typeof value === 'object' || (typeof value === 'string' && value.includes('\n'))) {
    return <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
  }
  return <>{String(value)}</>;
}
