/**
 * The connection variables gate (docs/security.md, "Values that reach Ansible"): a launch whose
 * variables set one of Ansible's connection, interpreter or executable variables is refused with
 * 400 naming it, unless the template's own extra_vars or the inventory set that variable (its
 * authors chose it already) or ALLOW_CONNECTION_VARS_ON_LAUNCH allows it. AWX lets a launcher with
 * ask_variables_on_launch set them: Drover does not, since they run programs on the execution node.
 */
import type { Queryable } from '../db/database.ts';
import { isConnectionVariable } from '../ansible/connection-variables.ts';
import { parseVariables } from '../inventory/variables.ts';
import type { Gate, GateInput, Verdict } from './gates.ts';

const ALLOW: Verdict = { decision: 'allow' };

/** Which of `names` the inventory (its own, its groups' or its hosts' variables) sets. */
async function setByInventory(tx: Queryable, inventoryId: number, names: string[]): Promise<Set<string>> {
  const rows = await tx.query<{ variables: string }>(
    `SELECT variables FROM inventories WHERE id = $1
     UNION ALL SELECT variables FROM groups WHERE inventory_id = $1 AND EXISTS (SELECT 1 FROM unnest($2::text[]) n WHERE strpos(variables, n) > 0)
     UNION ALL SELECT variables FROM hosts WHERE inventory_id = $1 AND EXISTS (SELECT 1 FROM unnest($2::text[]) n WHERE strpos(variables, n) > 0)`,
    [inventoryId, names],
  );
  const found = new Set<string>();
  for (const row of rows) for (const name of Object.keys(parseVariables(row.variables))) if (names.includes(name)) found.add(name);
  return found;
}

async function check(tx: Queryable, launch: GateInput): Promise<Verdict> {
  // A workflow's nodes take the workflow's variables, which were checked when the workflow launched.
  if (launch.launchType === 'workflow') return ALLOW;
  if (launch.ctx.service.settings.get('ALLOW_CONNECTION_VARS_ON_LAUNCH') === true) return ALLOW;
  const given = Object.keys(parseVariables(launch.run.extra_vars)).filter(isConnectionVariable);
  if (!given.length) return ALLOW;
  const own = parseVariables(typeof launch.template?.extra_vars === 'string' ? launch.template.extra_vars : '');
  let refused = given.filter((name) => !(name in own));
  if (refused.length && launch.run.inventory_id) {
    const inventory = await setByInventory(tx, launch.run.inventory_id, refused);
    refused = refused.filter((name) => !inventory.has(name));
  }
  if (!refused.length) return ALLOW;
  const messages = refused.map(
    (name) => `"${name}" chooses how Ansible connects or which program it runs: only the template's extra variables or the inventory may set it.`,
  );
  return { decision: 'deny', status: 400, message: messages.join(' '), body: { extra_vars: messages } };
}

export const connectionVariablesGate: Gate = { name: 'connection variables', check };
