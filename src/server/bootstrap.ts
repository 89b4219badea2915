import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Database } from '../db/database.ts';
import type { EnvConfig } from '../config/env.ts';
import { systemContext } from '../api/context.ts';
import { createObject } from '../api/crud.ts';
import { getResource } from '../api/resource.ts';
import { VERSION } from '../version.ts';
import { ensureManagedCredentialTypes } from '../resources/credential-types/sync-managed.ts';
import { ensureDefaultExecutionEnvironment } from '../resources/execution-environments/default-environment.ts';
import '../resources/index.ts';
import { ensureDefaultInstanceGroup } from '../resources/instance-groups/default-group.ts';
import { applyInstanceGroupPolicies } from '../resources/instance-groups/policy.ts';
import { nodeAnsibleRuntime, type AnsibleRuntime } from '../runtime/ansible-runtime.ts';

export interface BootstrapResult {
  /** Set only when the admin password was generated now; it is shown once and never stored in clear. */
  generatedAdminPassword: string | null;
}

/**
 * First-start data: the admin superuser (from SVC_ADMIN_USER / SVC_ADMIN_PASSWORD, or a
 * generated password in embedded mode), the Default organization and the managed default execution
 * environment, as AWX's installer creates.
 */
export async function bootstrap(db: Database, env: EnvConfig): Promise<BootstrapResult> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7341102)');
    let generatedAdminPassword: string | null = null;
    const [existing] = await tx.query('SELECT id FROM users WHERE username = $1', [env.adminUser]);
    if (!existing) {
      const password = env.adminPassword ?? randomBytes(18).toString('base64url');
      if (!env.adminPassword) generatedAdminPassword = password;
      await createObject(tx, systemContext, getResource('user'), { username: env.adminUser, password, is_superuser: true, is_system_auditor: false });
    }
    const [{ count }] = await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM organizations');
    const [{ done }] = await tx.query<{ done: boolean }>(`SELECT EXISTS (SELECT 1 FROM activity_stream WHERE object1 = 'organization') AS done`);
    if (count === 0 && !done) {
      await createObject(tx, systemContext, getResource('organization'), { name: 'Default', description: '', max_hosts: 0, policy_enforcement: 'none' });
    }
    await ensureDefaultExecutionEnvironment(tx);
    await ensureManagedCredentialTypes(tx);
    await ensureDefaultInstanceGroup(tx);
    return { generatedAdminPassword };
  });
}

/** CPU capacity = cores × 4, memory capacity = MB / 100; the instance offers the smaller (with capacity_adjustment 0). */
export function nodeCapacity(cpus = os.cpus().length, memoryBytes = os.totalmem()) {
  const cpuCapacity = cpus * 4;
  const memCapacity = Math.floor(memoryBytes / 1024 / 1024 / 100);
  return { cpus, memoryBytes, cpuCapacity, memCapacity, capacity: Math.min(cpuCapacity, memCapacity) };
}

/**
 * Records this node (SVC_NODE_NAME, SVC_NODE_TYPE) with its CPU, memory and capacity, marks it
 * seen now, and puts it in instance groups by their policies. Without an Ansible runtime the node
 * is recorded with the reason in `errors` and no capacity, as AWX marks a node that fails its
 * health check.
 */
export async function registerInstance(db: Database, env: EnvConfig, runtime?: AnsibleRuntime): Promise<void> {
  const c = nodeCapacity();
  const errors = (runtime ?? (await nodeAnsibleRuntime())).error;
  // AWX's capacity rule (see adjustedCapacity), in SQL so a stored capacity_adjustment and enabled flag apply.
  const capacity = (row: string) =>
    `CASE WHEN ${row}.enabled AND $9 = '' THEN floor(least($6, $7) + (greatest($6, $7) - least($6, $7)) * ${row}.capacity_adjustment)::int ELSE 0 END`;
  await db.transaction(async (tx) => {
    await ensureDefaultInstanceGroup(tx);
    const [previous] = await tx.query<{ node_type: string }>('SELECT node_type FROM instances WHERE hostname = $1', [env.nodeName]);
    const [row] = await tx.query(
      `INSERT INTO instances AS i (hostname, node_type, uuid, version, cpu, memory, cpu_capacity, mem_capacity, capacity, errors, last_seen, last_health_check)
       VALUES ($1, $2, gen_random_uuid()::text, $3, $4, $5, $6, $7, CASE WHEN $9 = '' THEN $8::int ELSE 0 END, $9, now(), now())
       ON CONFLICT (hostname) DO UPDATE SET node_type = EXCLUDED.node_type, version = EXCLUDED.version, cpu = EXCLUDED.cpu,
         memory = EXCLUDED.memory, cpu_capacity = EXCLUDED.cpu_capacity, mem_capacity = EXCLUDED.mem_capacity,
         capacity = ${capacity('i')}, errors = EXCLUDED.errors, last_seen = now(), last_health_check = now(), modified = now()
       RETURNING (SELECT count(*) FROM instance_group_instances WHERE instance_id = i.id)::int AS groups`,
      [env.nodeName, env.nodeType, VERSION, c.cpus, c.memoryBytes, c.cpuCapacity, c.memCapacity, c.capacity, errors],
    );
    if (previous?.node_type !== env.nodeType || row.groups === 0) await applyInstanceGroupPolicies(tx);
  });
}
