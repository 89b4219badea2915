import type { RequestContext } from '../api/context.ts';
import { hasObjectRole } from '../api/access.ts';
import { forbidden, ValidationError } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';
import type { ScmInputs } from './git-auth.ts';

// TEMPORARY until credentials land.
export async function checkScmCredential(ctx: RequestContext, tx: Queryable, credentialId: number): Promise<void> {
  const [row] = await tx.query('SELECT t.kind FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1', [credentialId]);
  if (!row) throw ValidationError.field('credential', 'no such credential');
  if (!(await hasObjectRole(ctx, tx, 'credential', credentialId, 'use_role'))) throw forbidden();
  if (row.kind !== 'scm') throw ValidationError.field('credential', "Credential kind must be 'scm'.");
}

export async function scmInputs(db: Queryable, credentialId: number | null): Promise<ScmInputs | null> {
  if (!credentialId) return null;
  const [row] = await db.query('SELECT inputs FROM credentials WHERE id = $1', [credentialId]);
  return row?.inputs ?? null;
}
