import { Link } from 'react-router';
import { Label, type LabelProps } from '@patternfly/react-core';
import type { AnyResource } from '../api/types';
import type { Column } from '../resources/types';
import { runPath } from '../resources/run-paths';

const STATUS_COLORS: Record<string, 'green' | 'red' | 'blue' | 'orange' | 'grey' | 'purple'> = {
  successful: 'green',
  ok: 'green',
  sent: 'green',
  failed: 'red',
  error: 'red',
  canceled: 'orange',
  running: 'blue',
  pending: 'purple',
  waiting: 'purple',
  new: 'grey',
  never_updated: 'grey',
  missing: 'red',
  timed_out: 'red',
};

/** A status as a coloured label (a run's by default; `colors` for other kinds of status). */
export function StatusLabel({ status, colors = STATUS_COLORS }: { status?: unknown; colors?: Partial<Record<string, LabelProps['color']>> }) {
  if (!status) return <>–</>;
  const text = String(status);
  return (
    <Label color={colors[text] ?? 'grey'} isCompact data-status={text}>
      {text.replace(/_/g, ' ')}
    </Label>
  );
}

export function formatDate(value: unknown): string {
  if (!value || typeof value !== 'string') return '–';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** The name of a referenced object, from summary_fields, linked to its page. */
export function SummaryLink({ object, field, resource }: { object: AnyResource; field: string; resource: string }) {
  const summary = object.summary_fields?.[field] as { id?: number; name?: string } | undefined;
  if (!summary?.id) return <>–</>;
  return <Link to={`/${resource}/${summary.id}`}>{summary.name ?? `#${summary.id}`}</Link>;
}

export const nameColumn = (key: string, label = 'Name'): Column => ({
  field: 'name',
  label,
  sort: true,
  render: (o) => <Link to={`/${key}/${o.id}`}>{String(o.name ?? o.username ?? `#${o.id}`)}</Link>,
});

export const refColumn = (field: string, label: string, resource: string): Column => ({
  field,
  label,
  sort: `${field}__name`,
  wide: true,
  render: (o) => <SummaryLink object={o} field={field} resource={resource} />,
});

export const statusColumn: Column = { field: 'status', label: 'Status', sort: true, render: (o) => <StatusLabel status={o.status} /> };
export const modifiedColumn: Column = { field: 'modified', label: 'Last modified', sort: true, wide: true, render: (o) => formatDate(o.modified) };
export const dateColumn = (field: string, label: string): Column => ({ field, label, sort: true, wide: true, render: (o) => formatDate(o[field]) });

/** A run of any kind, linked to its output page. */
export const runNameColumn: Column = {
  field: 'name',
  label: 'Name',
  sort: true,
  render: (o) => <Link to={runPath(o)}>{`${o.id} - ${String(o.name ?? '')}`}</Link>,
};
