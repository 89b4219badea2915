import { openDatabase } from '../../db/open.ts';
import type { Database } from '../../db/database.ts';
import { loadMigrations } from '../../db/migrate.ts';
import { detectAnsibleRuntime, type AnsibleRuntime } from '../../runtime/ansible-runtime.ts';
import { CommandError, parseOptions, type Command } from '../command.ts';

interface InstanceState {
  enabled: boolean;
  capacity: number;
  errors: string;
}

/** The migrations not yet applied to the database (all of them on an empty one). */
async function pendingMigrations(db: Database): Promise<string[]> {
  const [{ present }] = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  const done = present ? new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name)) : new Set<string>();
  return (await loadMigrations()).map((m) => m.name).filter((name) => !done.has(name));
}

/** Why this node is not ready, or null when it is; checks in the order a start needs them. */
async function notReadyBecause(db: Database, hostname: string, runtime: AnsibleRuntime): Promise<string | null> {
  const pending = await pendingMigrations(db);
  if (pending.length) return `${pending.length} database migration(s) not applied (first: ${pending[0]}); start the service to apply them`;
  const [instance] = await db.query<InstanceState>('SELECT enabled, capacity, errors FROM instances WHERE hostname = $1', [hostname]);
  if (!instance) return `instance ${hostname} is not registered; start the service on this node`;
  if (!instance.enabled) return `instance ${hostname} is disabled`;
  // What the node recorded at its last heartbeat, then what this process finds now.
  if (instance.errors) return instance.errors;
  if (!runtime.available) return runtime.error;
  return null;
}

/**
 * Exit 0 when this node can take work: the database answers, its migrations are applied, the
 * node's instance is registered and enabled, and the Ansible runtime is installed. Reads only: it
 * neither migrates nor registers anything.
 */
export const checkInstanceReady: Command = {
  name: 'check_instance_ready',
  summary: 'Exit 0 when this node is ready to run jobs, 1 with the reason otherwise',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    const runtime = detectAnsibleRuntime();
    let db: Database;
    try {
      db = await openDatabase(env);
      await db.query('SELECT 1');
    } catch (err) {
      throw new CommandError(`database unreachable: ${(err as Error).message.split('\n')[0]}`);
    }
    try {
      const reason = await notReadyBecause(db, env.nodeName, await runtime);
      if (reason) throw new CommandError(`${env.nodeName} is not ready: ${reason}`);
      const { ansible_playbook_version: core, ansible_runner_version: runner } = await runtime;
      io.out(`Instance ${env.nodeName} is ready (ansible-core ${core}, ansible-runner ${runner})`);
      return 0;
    } finally {
      await db.close();
    }
  },
};
