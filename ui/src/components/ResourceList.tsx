import { Fragment, Suspense, useState } from 'react';
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
  ExpandableSection,
  Label,
  LabelGroup,
  Checkbox,
} from '@patternfly/react-core';
import { Table, Thead, Tr, Th, Tbody, Td, ExpandableRowContent, type ThProps } from '@patternfly/react-table';
import { withQuery } from '../api/client';
import type { AnyResource, FieldMeta } from '../api/types';
import { useOptions, usePage, type ListRefetch } from '../hooks/api-hooks';
import type { ResourceConfig } from '../resources/types';
import { ErrorAlert } from './ErrorAlert';
import { Loading } from './Loading';
import { RowActions } from './RowActions';
import { AdvancedSearch, FieldFilter } from './ListFilters';
import { lazyOnce } from './lazy-cache';

/** Query keys of the list's own; every other search parameter is a field filter passed to the API as is. */
const LIST_KEYS = new Set(['page', 'page_size', 'order_by', 'search']);
const rowKey = (o: AnyResource) => `${o.type}-${o.id}`;

interface Props {
  config: ResourceConfig;
  /** The API list (default /api/v2/<key>/): a related list when shown on a tab. */
  url?: string;
  /** Query the Add button passes to the form (the parent of a related list). */
  addQuery?: Record<string, string | number>;
  refetchInterval?: ListRefetch;
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
  const [selected, setSelected] = useState<Map<string, AnyResource>>(new Map());
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const BulkActions = config.bulkActions ? lazyOnce(config.bulkActions) : null;

  const update = (changes: Record<string, string | null>, resetPage = true) => {
    setSelected(new Map());
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

  const searchKey = config.searchKey ?? 'search';
  const filters = [...params.entries()].filter(([k]) => !LIST_KEYS.has(k) && k !== searchKey);
  const addLink = withQuery(`/${config.key}/add`, addQuery ?? {});
  const results = page.data?.results ?? [];
  const allSelected = results.length > 0 && results.every((o) => selected.has(rowKey(o)));
  const selectAll = (on: boolean) => setSelected(on ? new Map(results.map((o) => [rowKey(o), o])) : new Map());
  const selectOne = (o: AnyResource, on: boolean) =>
    setSelected((prev) => {
      const next = new Map(prev);
      if (on) next.set(rowKey(o), o);
      else next.delete(rowKey(o));
      return next;
    });
  const expand = (o: AnyResource) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(rowKey(o))) next.add(rowKey(o));
      return next;
    });
  const columnCount = config.columns.length + 1 + (BulkActions ? 1 : 0) + (config.expandedRow ? 1 : 0);

  return (
    <>
      <Toolbar clearAllFilters={() => setParams(new URLSearchParams())}>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput
              aria-label={`Search ${config.label.toLowerCase()}`}
              placeholder="Search"
              value={params.get(searchKey) ?? ''}
              onChange={(_e, value) => update({ [searchKey]: value })}
              onClear={() => update({ [searchKey]: null })}
            />
          </ToolbarItem>
          <ToolbarItem>
            <FieldFilter options={options.data} filters={config.filters} onAdd={(key, value) => update({ [key]: value })} />
          </ToolbarItem>
          {BulkActions && (
            <ToolbarItem>
              <Suspense fallback={null}>
                <BulkActions selected={results.filter((o) => selected.has(rowKey(o)))} onDone={() => setSelected(new Map())} />
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
        <ToolbarContent>
          <ToolbarItem>
            <ExpandableSection toggleText="Advanced search" isIndented>
              <AdvancedSearch options={options.data} onAdd={(key, value) => update({ [key]: value })} />
            </ExpandableSection>
          </ToolbarItem>
        </ToolbarContent>
        {filters.length > 0 && (
          <ToolbarContent>
            <ToolbarItem>
              <LabelGroup categoryName="Filters">
                {filters.map(([k, v]) => (
                  <Label key={k} onClose={() => update({ [k]: null })} closeBtnAriaLabel={`Remove filter ${k}`}>
                    {config.filters?.find((f) => f.key === k)?.label ?? k}: {v}
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
              {config.expandedRow && <Th screenReaderText="Row details" />}
              {BulkActions && (
                <Th modifier="fitContent" aria-label="Selected">
                  <Checkbox id="select-all-rows" aria-label="Select all rows on this page" isChecked={allSelected ? true : selected.size ? null : false} onChange={(_e, on) => selectAll(on)} />
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
            {results.map((o: AnyResource, rowIndex) => (
              <Fragment key={rowKey(o)}>
              <Tr data-id={o.id} isRowSelected={selected.has(rowKey(o))}>
                {config.expandedRow && (
                  <Td expand={{ rowIndex, isExpanded: expanded.has(rowKey(o)), onToggle: () => expand(o), expandId: `expand-${rowKey(o)}` }} />
                )}
                {BulkActions && (
                  <Td modifier="fitContent" dataLabel="Selected">
                    <Checkbox id={`select-${rowKey(o)}`} aria-label={`Select ${displayName(o)}`} isChecked={selected.has(rowKey(o))} onChange={(_e, on) => selectOne(o, on)} />
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
              {config.expandedRow && expanded.has(rowKey(o)) && (
                <Tr isExpanded>
                  <Td colSpan={columnCount}>
                    <ExpandableRowContent>{config.expandedRow(o)}</ExpandableRowContent>
                  </Td>
                </Tr>
              )}
              </Fragment>
            ))}
          </Tbody>
        </Table>
      )}
    </>
  );
}

const displayName = (o: AnyResource) => String(o.name ?? o.username ?? o.hostname ?? `#${o.id}`);

/** A plain cell: a choice by the name OPTIONS gives it (Git, not git), yes or no, the value as text. */
function formatCell(value: unknown, meta?: FieldMeta): string {
  if (value === null || value === undefined || value === '') return '–';
  const choice = meta?.choices?.find(([v]) => v === value);
  if (choice) return choice[1];
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
