import type { RequestContext } from '../../api/context.ts';
import { createObject } from '../../api/crud.ts';
import type { Queryable } from '../../db/database.ts';
import { executionEnvironments } from './execution-environment.resource.ts';

export const DEFAULT_EXECUTION_ENVIRONMENT_NAME = 'Default execution environment';
/** The image the managed default names: AWX's own runtime image of the release this API follows. */
export const DEFAULT_EXECUTION_ENVIRONMENT_IMAGE = 'quay.io/ansible/awx-ee:24.6.1';

/**
 * Creates the managed, global default execution environment unless a managed one exists (part of
 * the first-start bootstrap; safe to call on every start). A user's environment that already
 * holds the name is left alone, and then none is created.
 */
export async function ensureDefaultExecutionEnvironment(tx: Queryable, system: RequestContext, image = DEFAULT_EXECUTION_ENVIRONMENT_IMAGE): Promise<void> {
  const [present] = await tx.query('SELECT 1 FROM execution_environments WHERE managed OR name = $1 LIMIT 1', [DEFAULT_EXECUTION_ENVIRONMENT_NAME]);
  if (present) return;
  await createObject(tx, system, executionEnvironments, {
    name: DEFAULT_EXECUTION_ENVIRONMENT_NAME,
    description: 'The node\'s own Ansible runtime; managed by the service.',
    organization: null,
    image,
    credential: null,
    pull: '',
    managed: true,
  });
}

/**
 * The execution environment a run uses when neither it nor its template, project or organization
 * names one (AWX's order): the DEFAULT_EXECUTION_ENVIRONMENT setting when it names one that
 * exists, else the oldest global environment not managed by the service, else the managed one.
 * Answers null when there is none at all.
 */
export async function defaultExecutionEnvironmentId(db: Queryable, settingValue: number | null | undefined): Promise<number | null> {
  const [row] = await db.query<{ id: number }>(
    `SELECT id FROM execution_environments
     WHERE id = $1 OR organization_id IS NULL
     ORDER BY (id = $1) DESC, managed ASC, created ASC, id ASC LIMIT 1`,
    [settingValue ?? 0],
  );
  return row?.id ?? null;
}
