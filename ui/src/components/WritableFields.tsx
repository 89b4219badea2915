import type { ReactNode } from 'react';
import { Alert } from '@patternfly/react-core';
import type { AnyResource, FieldMeta } from '../api/types';
import { useOptions } from '../hooks/api-hooks';
import { ErrorAlert } from './ErrorAlert';
import { Loading } from './Loading';

/**
 * The fields the caller may write at `url` (OPTIONS: PUT when editing, POST when adding), given to
 * `children` once loaded; a notice saying `refusal` when the caller may write none.
 */
export function WritableFields({ url, editing, refusal, children }: {
  url: string;
  editing: boolean;
  refusal: string;
  children: (fields: Record<string, FieldMeta>) => ReactNode;
}) {
  const options = useOptions(url);
  const fields = editing ? options.data?.actions?.PUT : options.data?.actions?.POST;
  if (options.isPending) return <Loading />;
  if (options.error) return <ErrorAlert error={options.error} />;
  if (!fields) return <Alert variant="warning" isInline title={refusal} />;
  return <>{children(fields)}</>;
}

/**
 * A form's starting values of the fields it renders plainly (not those in `own`): the object's when
 * editing, else a value the query string gives (a number when it reads as one), else the default.
 */
export function plainFieldValues(fields: Record<string, FieldMeta>, object: AnyResource | undefined, query: URLSearchParams, own: ReadonlySet<string>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, meta] of Object.entries(fields)) {
    if (own.has(name)) continue;
    if (object) values[name] = object[name];
    else if (query.has(name)) values[name] = Number(query.get(name)) || query.get(name);
    else if (meta.default !== undefined) values[name] = meta.default;
  }
  return values;
}

/** What a form sends of its plain fields: set values; on create, blank ones only where the field is required (so the API says so). */
export function sentFieldValues(values: Record<string, unknown>, fields: Record<string, FieldMeta>, editing: boolean): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== undefined && (editing || v !== '' || fields[k]?.required)));
}
