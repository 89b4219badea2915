// The Demo Project's repository: every node makes the same one in its own data directory (the same
// files, author and dates give the same commit id), so the revision its updates record can be
// fetched on any node, whichever node created the demo content.
import path from 'node:path';
import type { EnvConfig } from '../config/env.ts';
import type { Queryable } from '../db/database.ts';

/** The demo repository as the database names it (the creating node's path) and as this node holds it. */
export interface DemoRepository {
  recorded: string;
  local: string;
}

/** The local stand-in for ansible-tower-samples: a bare repository in the data directory. */
export const demoRepositoryPath = (env: Pick<EnvConfig, 'dataDir'>) => path.join(env.dataDir, 'demo', 'ansible-tower-samples.git');

/** The demo repository, when demo content was created (installation.demo_repository, migration 0046). */
export async function demoRepository(db: Queryable, env: Pick<EnvConfig, 'dataDir'>): Promise<DemoRepository | null> {
  const [row] = await db.query<{ demo_repository: string }>('SELECT demo_repository FROM installation');
  return row?.demo_repository ? { recorded: row.demo_repository, local: demoRepositoryPath(env) } : null;
}
