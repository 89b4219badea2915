import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import { Link } from 'react-router';
import type { AnyResource, FieldMeta } from '../api/types';
import { useOptions } from '../hooks/api-hooks';
import { referencedResource } from '../resources/references';
import { formatDate } from './cells';
import { StatusLabel } from './cells';
import { objectUrl } from '../api/object-url';

const INTERNAL = new Set(['id', 'type', 'url', 'related', 'summary_fields']);
const ASK = /^ask_(\w+?)_on_launch$/;

/** The fields of an object as OPTIONS labels them; references by name, linked; variables as text. */
export function ResourceDetail({ object, fields }: { object: AnyResource; fields?: string[] }) {
  const options = useOptions(objectUrl(object));
  const meta = options.data?.actions?.GET ?? {};
  const names = (fields ?? Object.keys(meta).filter((n) => !INTERNAL.has(n) && n in object)).filter((n) => !ASK.test(n));
  // AWX's many ask_*_on_launch switches read better as one list of what is prompted.
  const asked = Object.keys(object).filter((n) => ASK.test(n));
  const prompted = asked.filter((n) => object[n] === true).map((n) => n.replace(ASK, '$1').replace(/_/g, ' '));
  return (
    <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
      {asked.length > 0 && (
        <DescriptionListGroup>
          <DescriptionListTerm>Prompted on launch</DescriptionListTerm>
          <DescriptionListDescription data-field="prompted_on_launch">{prompted.length ? prompted.join(', ') : 'Nothing'}</DescriptionListDescription>
        </DescriptionListGroup>
      )}
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

function Value({ object, name, meta }: { object: AnyResource; name: string; meta?: FieldMeta }) {
  const value = object[name];
  const summary = object.summary_fields?.[name] as { id?: number; name?: string } | undefined;
  const reference = referencedResource(name);
  if (summary?.id && reference) return <Link to={`/${reference}/${summary.id}`}>{summary.name ?? `#${summary.id}`}</Link>;
  if (name === 'status') return <StatusLabel status={value} />;
  if (value === null || value === undefined || value === '') return <>–</>;
  if (meta?.type === 'datetime') return <>{formatDate(value)}</>;
  const choiceText = (v: unknown) => meta?.choices?.find(([c]) => c === v)?.[1] ?? String(v);
  if (meta?.choices && Array.isArray(value)) return <>{value.length ? value.map(choiceText).join(', ') : '–'}</>;
  if (meta?.choices) return <>{choiceText(value)}</>;
  if (typeof value === 'boolean') return <>{value ? 'Yes' : 'No'}</>;
  if (meta?.type === 'json' || typeof value === 'object' || (typeof value === 'string' && value.includes('\n'))) {
    return <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
  }
  return <>{String(value)}</>;
}
