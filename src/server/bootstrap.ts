import { randomBytes } from 'node:crypto';
import { systemContextIn, type Services } from '../api/context.ts';
import { ResourceSet } from '../api/resource-set.ts';
import { createObject } from '../api/crud.ts';
import { ensureManagedCredentialTypes } from '../resources/credential-types/sync-managed.ts';
import { ensureDefaultExecutionEnvironment } from '../resources/execution-environments/default-environment.ts';
import { RESOURCES } from '../composition/resources.ts';
import { ensureDefaultInstanceGroup } from '../resources/instance-groups/default-group.ts';

export interface BootstrapResult {
  /** Set only when the admin password was generated now; it is shown once and never stored in clear. */
  generatedAdminPassword: string | null;
}

/**
 * First-start data: the admin superuser (from SVC_ADMIN_USER / SVC_ADMIN_PASSWORD, or a
 * generated password in embedded mode), the Default organization and the managed default execution
 * environment, as AWX's installer creates.
 */
export async function bootstrap(base: Pick<Services, 'db' | 'env' | 'settings' | 'caches'> & Partial<Pick<Services, 'resources'>>): Promise<BootstrapResult> {
  // Before a service is composed (a fresh database of the tests), the resources of the composition root.
  const services = { ...base, resources: base.resources ?? new ResourceSet(RESOURCES) };
  const { db, env } = services;
  const system = systemContextIn(services);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7341102)');
    let generatedAdminPassword: string | null = null;
    const [existing] = await tx.query('SELECT id FROM users WHERE username = $1', [env.adminUser]);
    if (!existing) {
      const password = env.adminPassword ?? randomBytes(18).toString('base64url');
      if (!env.adminPassword) generatedAdminPassword = password;
      await createObject(tx, system, services.resources.get('user'), { username: env.adminUser, password, is_superuser: true, is_system_auditor: false });
    }
    const [{ count }] = await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM organizations');
    const [{ done }] = await tx.query<{ done: boolean }>(`SELECT EXISTS (SELECT 1 FROM activity_stream WHERE object1 = 'organization') AS done`);
    if (count === 0 && !done) {
      await createObject(tx, system, services.resources.get('organization'), { name: 'Default', description: '', max_hosts: 0, policy_enforcement: 'none' });
    }
    await ensureDefaultExecutionEnvironment(tx, system);
    await ensureManagedCredentialTypes(tx);
    // The managed "Ansible Galaxy" credential, the Default organization's Galaxy credential (migration 0048).
    await tx.query('SELECT ensure_galaxy_credential()');
    await ensureDefaultInstanceGroup(tx, system);
    return { generatedAdminPassword };
  });
}
