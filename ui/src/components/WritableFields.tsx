import type { ReactNode } from 'react';
import { Alert } from '@patternfly/react-core';
import type { FieldMeta } from '../api/types';
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
