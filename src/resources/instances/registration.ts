/** This node's Instance row: recorded at start and on every heartbeat, with its capacity. */
import os from 'node:os';
import { systemContextIn, type Services } from '../../api/context.ts';
import { VERSION } from '../../version.ts';
import { ensureDefaultInstanceGroup } from '../instance-groups/default-group.ts';
import { applyInstanceGroupPolicies } from '../instance-groups/policy.ts';
import { nodeAnsibleRuntime, type AnsibleRuntime } from '../../runtime/ansible-runtime.ts';
import { nodeSandbox } from '../../runtime/sandbox.ts';
import { runIsolation } from '../../runtime/run-isolation.ts';

/** CPU capacity = cores × 4, memory capacity = MB / 100; the instance offers the smaller (with capacity_adjustment 0). */
export function nodeCapacity(cpus = os.cpus().length, memoryBytes = os.totalmem()) {
  const cpuCapacity = cpus * 4;
  const memCapacity = Math.floor(memoryBytes / 1024 / 1024 / 100);
  return { cpus, memoryBytes, cpuCapacity, memCapacity, capacity: Math.min(cpuCapacity, memCapacity) };
}

/**
 * Records this node (SVC_NODE_NAME, SVC_NODE_TYPE) with its CPU, memory and capacity, marks it
 * seen now, and puts it in instance groups by their policies. Without an Ansible runtime, or
 * unable to isolate runs while AWX_ISOLATION_ENABLED asks for it, the node is recorded with the
 * reason in `errors` and no capacity, as AWX marks a node that fails its health check.
 * A node marked unavailable (by a failed check, or by another node when it went silent) is ready
 * again, with its capacity, as soon as it records itself without errors; one being deprovisioned
 * stays so. With `rejoin: false` (the heartbeat) a node whose row was removed (deprovisioned) is
 * not recorded again; answers whether the node is registered.
 */
export async function registerInstance(
  services: Pick<Services, 'db' | 'env' | 'settings' | 'resources' | 'caches'>,
  runtime?: AnsibleRuntime,
  { rejoin = true }: { rejoin?: boolean } = {},
): Promise<boolean> {
  const { db, env } = services;
  const c = nodeCapacity();
  const isolation = runIsolation(services.settings, await nodeSandbox());
  const errors = [(runtime ?? (await nodeAnsibleRuntime())).error, isolation.error].filter(Boolean).join(' ');
  // AWX's capacity rule (see adjustedCapacity), in SQL so a stored capacity_adjustment and enabled flag apply.
  const capacity = (row: string) =>
    `CASE WHEN ${row}.enabled AND $9 = '' THEN floor(least($6, $7) + (greatest($6, $7) - least($6, $7)) * ${row}.capacity_adjustment)::int ELSE 0 END`;
  return db.transaction(async (tx) => {
    await ensureDefaultInstanceGroup(tx, systemContextIn(services));
    const [previous] = await tx.query<{ node_type: string }>('SELECT node_type FROM instances WHERE hostname = $1 FOR UPDATE', [env.nodeName]);
    if (!previous && !rejoin) return false;
    const [row] = await tx.query(
      `INSERT INTO instances AS i (hostname, node_type, node_state, uuid, version, cpu, memory, cpu_capacity, mem_capacity, capacity, errors, isolates_runs, last_seen, last_health_check)
       VALUES ($1, $2, CASE WHEN $9 = '' THEN 'ready' ELSE 'unavailable' END, gen_random_uuid()::text, $3, $4, $5, $6, $7, CASE WHEN $9 = '' THEN $8::int ELSE 0 END, $9, $10, now(), now())
       ON CONFLICT (hostname) DO UPDATE SET node_type = EXCLUDED.node_type, version = EXCLUDED.version, cpu = EXCLUDED.cpu, isolates_runs = EXCLUDED.isolates_runs,
         memory = EXCLUDED.memory, cpu_capacity = EXCLUDED.cpu_capacity, mem_capacity = EXCLUDED.mem_capacity,
         node_state = CASE WHEN i.node_state = 'deprovisioning' THEN i.node_state ELSE EXCLUDED.node_state END,
         capacity = ${capacity('i')}, errors = EXCLUDED.errors, last_seen = now(), last_health_check = now(), modified = now()
       RETURNING (SELECT count(*) FROM instance_group_instances WHERE instance_id = i.id)::int AS groups`,
      [env.nodeName, env.nodeType, VERSION, c.cpus, c.memoryBytes, c.cpuCapacity, c.memCapacity, c.capacity, errors, isolation.isolates_runs],
    );
    if (previous?.node_type !== env.nodeType || row.groups === 0) await applyInstanceGroupPolicies(tx);
    return true;
  });
}
