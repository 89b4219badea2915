import type { RequestContext, Services } from '../api/context.ts';
import { loadRow } from '../api/crud.ts';
import { serializeRow } from '../api/serialize.ts';
import { readTogether } from '../db/database.ts';
import { secondFactorRequiredSql } from './second-factor.ts';

/** What /api/v2/me/ and the logins answer about the caller: the user, and where he stands with the second factor. */
export interface MeObject extends Record<string, unknown> {
  /** An organization the user belongs to asks him for a second factor (docs/webauthn.md). */
  second_factor_required: boolean;
  /** This session must pass the second factor before the rest of the API answers it. */
  second_factor_pending: boolean;
  /** How many passkeys the user has registered: none means a pending session registers one first. */
  webauthn_credentials: number;
}

/** The caller (a signed-in user) as /api/v2/me/ lists him. */
export async function meObject(services: Services, ctx: RequestContext): Promise<MeObject> {
  const { db } = services;
  const users = services.resources.get('user');
  const userId = ctx.user!.id;
  const [out, [facts]] = await readTogether(db, [
    async () => serializeRow(db, ctx, users, await loadRow(db, users, userId)),
    () => db.query<{ required: boolean; credentials: number }>(
      `SELECT ${secondFactorRequiredSql('u.id')} AS required,
              (SELECT count(*)::int FROM webauthn_credentials c WHERE c.user_id = u.id) AS credentials
       FROM users u WHERE u.id = $1`,
      [userId],
    ),
  ] as const);
  return {
    ...out,
    second_factor_required: facts?.required === true,
    second_factor_pending: ctx.secondFactorPending === true,
    webauthn_credentials: facts?.credentials ?? 0,
  };
}
