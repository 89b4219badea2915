import type { RequestContext } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import { assertCanUseCredential, decryptedInputs } from '../resources/credentials/credential-use.ts';
import type { ScmInputs } from './git-auth.ts';
import type { LookupContext } from '../resources/credentials/dynamic-inputs.ts';

/** A project may name only a Source Control credential the caller may use. */
export const checkScmCredential = (ctx: RequestContext, tx: Queryable, credentialId: number) =>
  assertCanUseCredential(ctx, tx, credentialId, 'credential', ['scm']);

export async function scmInputs(db: Queryable, credentialId: number | null, lookups: LookupContext): Promise<ScmInputs | null> {
  if (!credentialId) return null;
  return (await decryptedInputs(db, credentialId, lookups)).inputs as ScmInputs;
}
