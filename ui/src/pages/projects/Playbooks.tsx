import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { EmptyState, EmptyStateBody, SearchInput, List, ListItem, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';

/** The playbooks the project's last sync found. */
export default function Playbooks({ object }: { object: ResourceObject<'projects'> }) {
  const [search, setSearch] = useState('');
  const url = object.related?.playbooks ?? `${object.url}playbooks/`;
  const playbooks = useQuery({ queryKey: [url], queryFn: () => http.get<string[]>(url) });
  if (playbooks.isPending) return <Loading />;
  if (playbooks.error) return <ErrorAlert error={playbooks.error} />;
  const shown = playbooks.data.filter((p) => p.toLowerCase().includes(search.toLowerCase()));
  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput aria-label="Search playbooks" placeholder="Search playbooks" value={search} onChange={(_e, v) => setSearch(v)} onClear={() => setSearch('')} />
          </ToolbarItem>
          <ToolbarItem>{`${shown.length} of ${playbooks.data.length}`}</ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      {shown.length === 0 ? (
        <EmptyState titleText={playbooks.data.length ? 'No playbook matches' : 'No playbooks'} headingLevel="h2">
          <EmptyStateBody>{playbooks.data.length ? 'Change the search.' : 'Sync the project to find its playbooks.'}</EmptyStateBody>
        </EmptyState>
      ) : (
        <List aria-label="Playbooks" isPlain isBordered>
          {shown.map((p) => <ListItem key={p}><span className="drover-mono">{p}</span></ListItem>)}
        </List>
      )}
    </>
  );
}
