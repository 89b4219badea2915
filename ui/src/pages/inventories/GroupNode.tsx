import { useState } from 'react';
import { Link } from 'react-router';
import { Button, Label } from '@patternfly/react-core';
import { AngleDownIcon, AngleRightIcon, PlusCircleIcon } from '@patternfly/react-icons';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import type { ChildTarget } from './GroupChildModal';

/** One group of the tree: its name, host count, and (opened) its child groups. */
export function GroupNode({ group, depth, canEdit, onAddChild }: { group: ResourceObject<'groups'>; depth: number; canEdit: boolean; onAddChild: (target: ChildTarget) => void }) {
  const [open, setOpen] = useState(false);
  const hosts = usePage(withQuery(group.related.hosts, { page_size: 1 }));
  const childrenUrl = withQuery(group.related.children, { page_size: 200, order_by: 'name' });
  const children = usePage<ResourceObject<'groups'>>(open ? childrenUrl : undefined);
  // The first child page tells whether there is anything to open; fetched with the node.
  const hasChildren = usePage(withQuery(group.related.children, { page_size: 1 }));
  const childCount = hasChildren.data?.count ?? 0;
  const name = String(group.name);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

  return (
    <li role="treeitem" aria-expanded={childCount ? open : undefined} aria-level={depth} aria-label={name} data-group={name}>
      <div className="drover-tree-row">
        {childCount ? (
          <Button variant="plain" size="sm" aria-label={`${open ? 'Collapse' : 'Expand'} ${name}`} icon={open ? <AngleDownIcon /> : <AngleRightIcon />} onClick={() => setOpen(!open)} />
        ) : (
          <span className="drover-tree-spacer" />
        )}
        <Link to={`/groups/${group.id}`}>{name}</Link>
        <Label isCompact color="blue" aria-label={plural(hosts.data?.count ?? 0, 'host')}>{hosts.data ? plural(hosts.data.count, 'host') : '… hosts'}</Label>
        {childCount > 0 && <Label isCompact color="grey">{plural(childCount, 'child group')}</Label>}
        {canEdit && (
          <Button variant="link" size="sm" icon={<PlusCircleIcon />} aria-label={`Add a child group to ${name}`} onClick={() => onAddChild({ group })}>
            Child group
          </Button>
        )}
      </div>
      {open && (
        <ul role="group">
          {children.error && <li role="none"><ErrorAlert error={children.error} /></li>}
          {children.data?.results.map((child) => <GroupNode key={child.id} group={child} depth={depth + 1} canEdit={canEdit} onAddChild={onAddChild} />)}
        </ul>
      )}
    </li>
  );
}
