import { useState } from 'react';
import { Button, Tooltip } from '@patternfly/react-core';
import { TerminalIcon } from '@patternfly/react-icons';
import type { ResourceObject } from '../../api/types';
import { useOptions } from '../../hooks/api-hooks';
import { RunCommandModal } from './RunCommandModal';

/** Why the selected hosts cannot take one command, or null when they can. */
function refusal(selected: ResourceObject<'hosts'>[], inventories: Set<number | null>, allowed: boolean | undefined): string | null {
  if (!selected.length) return 'Select the hosts to run a command on.';
  if (inventories.size > 1) return 'Select hosts of one inventory: a command runs in one inventory.';
  if (allowed === false) return 'You may not run commands in this inventory.';
  if (allowed === undefined) return 'Checking whether you may run commands here…';
  return null;
}

/**
 * "Run command" on the hosts selected in a hosts list (AWX's inventory hosts toolbar): the ad hoc
 * command form of their inventory with the limit set to their names.
 */
export default function RunCommandOnHosts({ selected }: { selected: ResourceObject<'hosts'>[] }) {
  const [open, setOpen] = useState(false);
  const inventories = new Set(selected.map((host) => host.inventory));
  const inventory = inventories.size === 1 ? selected[0].inventory : null;
  const createUrl = typeof inventory === 'number' ? `/api/v2/inventories/${inventory}/ad_hoc_commands/` : undefined;
  // As AWX's console: commands may be run where OPTIONS of the inventory's ad_hoc_commands/ offers POST.
  const options = useOptions(createUrl);
  const reason = refusal(selected, inventories, options.data ? !!options.data.actions?.POST : options.isError ? false : undefined);
  const button = (
    <Button variant="secondary" icon={<TerminalIcon />} isAriaDisabled={!!reason} onClick={() => setOpen(true)}>
      Run command
    </Button>
  );
  return (
    <>
      {reason ? <Tooltip content={reason}>{button}</Tooltip> : button}
      {open && !reason && typeof inventory === 'number' && createUrl && (
        <RunCommandModal
          title={selected.length === 1 ? `Run a command on ${selected[0].name}` : `Run a command on ${selected.length} hosts`}
          createUrl={createUrl}
          inventory={inventory}
          limit={selected.map((host) => host.name).join(',')}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
