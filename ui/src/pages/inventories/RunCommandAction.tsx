import { useState } from 'react';
import { Button } from '@patternfly/react-core';
import { TerminalIcon } from '@patternfly/react-icons';
import type { ResourceObject } from '../../api/types';
import { RunCommandModal } from './RunCommandModal';

/**
 * "Run command" on an inventory, a host or a group (user_capabilities.adhoc): an ad hoc command on
 * the object's hosts, posted to its ad_hoc_commands/ list.
 */
export default function RunCommandAction({ object, variant }: { object: ResourceObject<'inventories' | 'hosts'>; variant: 'row' | 'detail' }) {
  const [open, setOpen] = useState(false);
  const name = String(object.name ?? `#${object.id}`);
  const runnable = !!object.summary_fields?.user_capabilities?.adhoc && !!object.related?.ad_hoc_commands;
  return (
    <>
      {runnable && (
        <Button variant={variant === 'detail' ? 'secondary' : 'plain'} icon={<TerminalIcon />} aria-label={variant === 'row' ? `Run a command on ${name}` : undefined} onClick={() => setOpen(true)}>
          {variant === 'detail' ? 'Run command' : null}
        </Button>
      )}
      {open && object.related?.ad_hoc_commands && (
        <RunCommandModal
          title={`Run a command on ${name}`}
          createUrl={object.related.ad_hoc_commands}
          inventory={'inventory' in object && typeof object.inventory === 'number' ? object.inventory : object.id}
          limit={object.type === 'inventory' ? 'all' : name}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
