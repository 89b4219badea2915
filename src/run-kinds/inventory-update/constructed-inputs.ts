import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import type { Queryable } from '../../db/database.ts';
import { inventoryScript } from '../../inventory/script.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { inputInventoryIds } from '../../resources/inventories/input-inventories.ts';

async function writePrivate(file: string, content: string, mode: number): Promise<void> {
  await writeFile(file, content, { mode });
  await chmod(file, mode);
}

/**
 * A constructed source (AWX's RunInventoryUpdate.build_args for kind constructed): each input
 * inventory, in order, becomes an inventory script of the run's private directory printing what
 * the inventory's script/ would (enabled hosts, variables and remote_tower_id / remote_tower_enabled),
 * given with -i before the constructed plugin's configuration, which is the source's variables
 * with `plugin: constructed`.
 */
export async function prepareConstructed(db: Queryable, job: { source_vars: string }, inventoryId: number, privateDir: string) {
  const dir = path.join(privateDir, 'inventory');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const inputs: string[] = [];
  for (const inputId of await inputInventoryIds(db, inventoryId)) {
    const data = await inventoryScript(db, inputId, { hostvars: true, towervars: true, all: false });
    await writePrivate(path.join(dir, `hosts_${inputId}.json`), JSON.stringify(data), 0o600);
    // A script: Ansible reads it as the inventory script plugin, as AWX writes its input inventories.
    const script = path.join(dir, `hosts_${inputId}`);
    await writePrivate(script, `#!/bin/sh\nexec cat "$(dirname "$0")/hosts_${inputId}.json"\n`, 0o700);
    inputs.push(script);
  }
  const config = { ...parseVariables(job.source_vars), plugin: 'constructed' };
  const configPath = path.join(dir, 'constructed.yml');
  await writePrivate(configPath, YAML.stringify(config, { lineWidth: 0 }), 0o600);
  return {
    inventoryPath: configPath,
    inputPaths: inputs,
    playbookDir: dir,
    env: { ANSIBLE_INVENTORY_ENABLED: 'auto,script', ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED: 'True' },
    secrets: [],
    updates: {},
  };
}
