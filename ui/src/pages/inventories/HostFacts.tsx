import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { CodeBlock, CodeBlockCode, EmptyState, EmptyStateBody, SearchInput, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { formatDate } from '../../components/cells';

/** The parts of the facts whose name (at any depth) or plain value contains the text. */
function matching(value: unknown, text: string): unknown {
  if (!text) return value;
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    const kept: [string, unknown][] = [];
    for (const [key, inner] of entries) {
      if (key.toLowerCase().includes(text)) kept.push([key, inner]);
      else {
        const found = matching(inner, text);
        if (found !== undefined) kept.push([key, found]);
      }
    }
    if (!kept.length) return undefined;
    return Array.isArray(value) ? kept.map(([, v]) => v) : Object.fromEntries(kept);
  }
  return String(value).toLowerCase().includes(text) ? value : undefined;
}

/** A host's gathered facts as JSON, narrowed by a search over names and values. */
export default function HostFacts({ object }: { object: ResourceObject<'hosts'> }) {
  const [search, setSearch] = useState('');
  const url = object.related?.ansible_facts ?? `${object.url}ansible_facts/`;
  const facts = useQuery({ queryKey: [url], queryFn: () => http.get<Record<string, unknown>>(url) });
  const shown = useMemo(() => matching(facts.data ?? {}, search.trim().toLowerCase()), [facts.data, search]);
  if (facts.isPending) return <Loading />;
  if (facts.error) return <ErrorAlert error={facts.error} />;
  if (!Object.keys(facts.data).length) {
    return (
      <EmptyState titleText="No facts" headingLevel="h2">
        <EmptyStateBody>Facts appear once a run with fact caching gathers them for this host.</EmptyStateBody>
      </EmptyState>
    );
  }
  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput aria-label="Search facts" placeholder="Search facts" value={search} onChange={(_e, v) => setSearch(v)} onClear={() => setSearch('')} />
          </ToolbarItem>
          <ToolbarItem>Gathered {formatDate(object.ansible_facts_modified)}</ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      {shown === undefined ? (
        <EmptyState titleText="No fact matches" headingLevel="h2" />
      ) : (
        <CodeBlock aria-label="Facts">
          <CodeBlockCode>{JSON.stringify(shown, null, 2)}</CodeBlockCode>
        </CodeBlock>
      )}
    </>
  );
}
