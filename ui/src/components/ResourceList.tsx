import { Suspense, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  Button,
  EmptyState,
  EmptyStateBody,
  EmptyStateFooter,
  Pagination,
  SearchInput,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
  FormSelect,
  FormSelectOption,
  TextInput,
  Label,
  LabelGroup,
  Checkbox,
} from '@patternfly/react-core';
import { Table, Thead, Tr, Th, Tbody, Td, type ThProps } from '@patternfly/react-table';
import { withQuery } from '../api/client';
import type { AnyResource, FieldMeta } from '../api/types';
import { useOptions, usePage } from '../hooks/api-hooks';
import type { ResourceConfig } from '../resources/types';
import { ErrorAlert } from './ErrorAlert';
import { Loading } from './Loading';
import { RowActions } from './RowActions';
import { lazyOnce } from './lazy-cache';

/** Query keys of the list's own; every other search parameter is a field filter passed to the API as is. */
const LIST_KEYS = new Set(['page', 'page_size', 'order_by', 'search']);

interface Props {
  config: ResourceConfig;
  /** The API list (default /api/v2/<key>/): a related list when shown on a tab. */
  url?: string;
  /** Query the Add button passes to the form (the parent of a related list). */
  addQuery?: Record<string, string | number>;
  refetchInterval?: number | false;
}

/**
 * A list page: search, field filters, sort and pagination live in the page's URL, which is the API's
 * query string as it is sent, so a link shares exactly what it shows.
 */
export function ResourceList({ config, url = `/api/v2/${config.key}/`, addQuery, refetchInterval }: Props) {
  const [params, setParams] = useSearchParams();
  const options = useOptions(url);
  const apiUrl = withQuery(url, Object.fromEntries(params));
  const page = usePage(apiUrl, refetchInterval);
  const canAdd = config.creatable !== false && !!options.data?.actions?.POST;

  const update = (changes: Record<string, string | null>, resetPage = true) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) if (v === null || v === '') next.delete(k); else next.set(k, v);
    if (resetPage) next.delete('page');
    setParams(next);
  };

  const orderBy = params.get('order_by') ?? '';
  const sortProps = (index: number, key: string): ThProps['sort'] => ({
    sortBy: { index: orderBy.replace(/^-/, '') === key ? index : undefined, direction: orderBy.startsWith('-') ? 'desc' : 'asc' },
    onSort: (_e, _i, direction) => update({ order_by: direction === 'desc' ? `-${key}` : key }),
    columnIndex: index,
  });

  const filters = [...params.entries()].filter(([k]) => !LIST_KEYS.has(k));
  const addLink = withQuery(`/${config.key}/add`, addQuery ?? {});
  const results = page.data?.results ?? [];
  const selection = useSelection(apiUrl, results);
  const Bulk = config.bulkActions ? lazyOnce(config.bulkActions) : null;

  return (
    <>
      <Toolbar clearAllFilters={() => setParams(new URLSearchParams())}>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput
              aria-label={`Search ${config.label.toLowerCase()}`}
              placeholder="Search"
              value={params.get('search') ?? ''}
              onChange={(_e, value) => update({ search: value })}
              onClear={() => update({ search: null })}
            />
          </ToolbarItem>
          <ToolbarItem>
            <FieldFilter fields={Object.entries(options.data?.actions?.GET ?? {}).filter(([, m]) => m.filterable)} onAdd={(key, value) => update({ [key]: value })} />
          </ToolbarItem>
          {Bulk && (
            <ToolbarItem>
              <Suspense fallback={null}>
                <Bulk selected={selection.selected} />
              </Suspense>
            </ToolbarItem>
          )}
          {canAdd && (
            <ToolbarItem>
              <Link to={addLink}>
                <Button variant="primary" component="span">Add</Button>
              </Link>
            </ToolbarItem>
          )}
          <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
            <Pagination
              itemCount={page.data?.count ?? 0}
              page={Number(params.get('page') ?? 1)}
              perPage={Number(params.get('page_size') ?? 25)}
              onSetPage={(_e, p) => update({ page: String(p) }, false)}
              onPerPageSelect={(_e, size) => update({ page_size: String(size) })}
              isCompact
            />
          </ToolbarItem>
        </ToolbarContent>
        {filters.length > 0 && (
          <ToolbarContent>
            <ToolbarItem>
              <LabelGroup categoryName="Filters">
                {filters.map(([k, v]) => (
                  <Label key={k} onClose={() => update({ [k]: null })} closeBtnAriaLabel={`Remove filter ${k}`}>
                    {k}: {v}
                  </Label>
                ))}
              </LabelGroup>
            </ToolbarItem>
          </ToolbarContent>
        )}
      </Toolbar>
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <Loading />
      ) : results.length === 0 && !page.error ? (
        <EmptyState titleText={params.size ? `No ${config.label.toLowerCase()} match` : `No ${config.label.toLowerCase()} yet`} headingLevel="h2">
          <EmptyStateBody>
            {params.size ? 'Change the search or remove filters to see more.' : canAdd ? `Add one with the Add button.` : config.emptyHint ?? 'Nothing to show here yet.'}
          </EmptyStateBody>
          {canAdd && !params.size && (
            <EmptyStateFooter>
              <Link to={addLink}>
                <Button variant="primary" component="span">Add {config.singular.toLowerCase()}</Button>
              </Link>
            </EmptyStateFooter>
          )}
        </EmptyState>
      ) : (
        <Table aria-label={config.label} variant="compact">
          <Thead>
            <Tr>
              {Bulk && (
                <Th modifier="fitContent" aria-label="Selected">
                  <Checkbox id="select-all-rows" aria-label="Select all rows on this page" isChecked={selection.all ? true : selection.selected.length ? null : false} onChange={(_e, on) => selection.setAll(on)} />
                </Th>
              )}
              {config.columns.map((c, i) => (
                <Th key={c.field} sort={c.sort ? sortProps(i, c.sort === true ? c.field : c.sort) : undefined} className={c.wide ? 'drover-hide-narrow' : undefined}>
                  {c.label}
                </Th>
              ))}
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {results.map((o: AnyResource) => (
              <Tr key={`${o.type}-${o.id}`} data-id={o.id} isRowSelected={selection.has(o)}>
                {Bulk && (
                  <Td modifier="fitContent" dataLabel="Selected">
                    <Checkbox id={`select-${o.type}-${o.id}`} aria-label={`Select ${displayName(o)}`} isChecked={selection.has(o)} onChange={(_e, on) => selection.set(o, on)} />
                  </Td>
                )}
                {config.columns.map((c) => (
                  <Td key={c.field} dataLabel={c.label} className={c.wide ? 'drover-hide-narrow' : undefined}>
                    {c.render ? c.render(o) : formatCell(o[c.field], options.data?.actions?.GET?.[c.field])}
                  </Td>
                ))}
                <Td isActionCell>
                  <RowActions config={config} object={o} listUrl={apiUrl} />
                </Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
    </>
  );
}

const displayName = (o: AnyResource) => String(o.name ?? o.username ?? o.hostname ?? `#${o.id}`);

/** The rows selected on the page shown; a new page, search or filter starts with none. */
function useSelection(apiUrl: string, results: AnyResource[]) {
  const [state, setState] = useState<{ url: string; ids: Set<number> }>({ url: apiUrl, ids: new Set() });
  const ids = state.url === apiUrl ? state.ids : new Set<number>();
  const change = (next: Set<number>) => setState({ url: apiUrl, ids: next });
  const selected = results.filter((o) => ids.has(o.id));
  return {
    selected,
    all: results.length > 0 && selected.length === results.length,
    has: (o: AnyResource) => ids.has(o.id),
    set: (o: AnyResource, on: boolean) => {
      const next = new Set(ids);
      if (on) next.add(o.id); else next.delete(o.id);
      change(next);
    },
    setAll: (on: boolean) => change(new Set(on ? results.map((o) => o.id) : [])),
  };
}

/** A plain cell: a choice by the name OPTIONS gives it (Git, not git), yes or no, the value as text. */
function formatCell(value: unknown, meta?: FieldMeta): string {
  if (value === null || value === undefined || value === '') return '–';
  const choice = meta?.choices?.find(([v]) => v === value);
  if (choice) return choice[1];
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Adds one field filter: a field, then a value (contains for text, exact otherwise). */
function FieldFilter({ fields, onAdd }: { fields: [string, { label?: string; type: string; choices?: [string | number, string][] }][]; onAdd: (key: string, value: string) => void }) {
  const [field, setField] = useState('');
  const [value, setValue] = useState('');
  const meta = fields.find(([name]) => name === field)?.[1];
  if (!fields.length) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!field || value === '') return;
    onAdd(meta?.type === 'string' ? `${field}__icontains` : field, value);
    setValue('');
  };
  return (
    <form onSubmit={submit} style={{ display: 'flex', gap: '0.5rem' }} aria-label="Add a filter">
      <FormSelect aria-label="Filter field" value={field} onChange={(_e, v) => setField(v)} style={{ maxWidth: '12rem' }}>
        <FormSelectOption value="" label="Filter by…" />
        {fields.map(([name, m]) => (
          <FormSelectOption key={name} value={name} label={m.label ?? name} />
        ))}
      </FormSelect>
      {field && (meta?.choices ? (
        <FormSelect aria-label="Filter value" value={value} onChange={(_e, v) => setValue(v)}>
          <FormSelectOption value="" label="Any" />
          {meta.choices.map(([v, l]) => <FormSelectOption key={String(v)} value={String(v)} label={l} />)}
        </FormSelect>
      ) : meta?.type === 'boolean' ? (
        <FormSelect aria-label="Filter value" value={value} onChange={(_e, v) => setValue(v)}>
          <FormSelectOption value="" label="Any" />
          <FormSelectOption value="true" label="Yes" />
          <FormSelectOption value="false" label="No" />
        </FormSelect>
      ) : (
        <TextInput aria-label="Filter value" value={value} onChange={(_e, v) => setValue(v)} />
      ))}
      {field && <Button type="submit" variant="secondary">Filter</Button>}
    </form>
  );
}
