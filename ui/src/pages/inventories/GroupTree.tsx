import { useState } from 'react';
import { Link } from 'react-router';
import { Button, EmptyState, EmptyStateBody, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { useQueryClient } from '@tanstack/react-query';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { GroupNode } from './GroupNode';
import { GroupChildModal, type ChildTarget } from './GroupChildModal';

/** The groups of an inventory as a tree: its root groups, each opening onto its children. */
export default function GroupTree({ object }: { object: ResourceObject<'inventories'> }) {
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<ChildTarget | null>(null);
  const url = object.related?.root_groups ? withQuery(object.related.root_groups, { page_size: 200, order_by: 'name' }) : undefined;
  const roots = usePage<ResourceObject<'groups'>>(url);
  const canEdit = !!object.summary_fields?.user_capabilities?.edit && object.kind !== 'smart';
  const groups = roots.data?.results ?? [];

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          {canEdit && (
            <ToolbarItem>
              <Link to={`/groups/add?inventory=${object.id}`}>
                <Button variant="primary" component="span">Add group</Button>
              </Link>
            </ToolbarItem>
          )}
          <ToolbarItem>
            <Link to={`/inventories/${object.id}/hosts`}>All hosts</Link>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={roots.error} />
      {roots.isPending ? (
        <Loading />
      ) : groups.length === 0 ? (
        <EmptyState titleText="No groups yet" headingLevel="h2">
          <EmptyStateBody>{canEdit ? 'Add one with Add group.' : 'This inventory has no groups.'}</EmptyStateBody>
        </EmptyState>
      ) : (
        <ul role="tree" aria-label={`Groups of ${String(object.name)}`} className="drover-tree">
          {groups.map((g) => <GroupNode key={g.id} group={g} depth={1} canEdit={canEdit} onAddChild={setTarget} />)}
          {roots.data && roots.data.count > groups.length && <li role="none">{roots.data.count - groups.length} more groups: see the groups list.</li>}
        </ul>
      )}
      <GroupChildModal
        target={target}
        onClose={() => setTarget(null)}
        onDone={() => queryClient.invalidateQueries({ predicate: (q) => typeof q.queryKey[0] === 'string' && (q.queryKey[0] as string).includes('/groups/') })}
      />
    </>
  );
}
