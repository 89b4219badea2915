/**
 * Who must pass a second factor (a registered passkey, docs/webauthn.md), and the wall a session
 * that has not passed it meets. An organization's `webauthn_required` decides for the people of
 * the organization: `admins` for those holding its admin_role, `all` for everyone holding any role
 * in it (its read_role: members, admins, auditors and its other roles, directly or through a team).
 * It binds superusers and system auditors by the roles they hold in it, as anyone else: an
 * organization's admins decide how the people of their organization sign in, not how the
 * installation's superusers do (their scripts' Basic authentication included).
 */
import { ApiError } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers a session that has not yet passed the second factor it must pass (login,
     * logout, me, config, the WebAuthn ceremonies); every other route answers it 401.
     */
    secondFactorExempt?: boolean;
  }
}

export const SECOND_FACTOR_REQUIRED = 'Second factor required.';

export const secondFactorRequiredError = () => new ApiError(401, { detail: SECOND_FACTOR_REQUIRED });

/** SQL (a boolean) of whether the user whose id is the SQL expression `userId` must pass a second factor. */
export function secondFactorRequiredSql(userId: string): string {
  return `EXISTS (
    SELECT 1 FROM organizations o
    JOIN roles r ON r.content_type = 'organization' AND r.object_id = o.id
      AND r.role_field = CASE o.webauthn_required WHEN 'all' THEN 'read_role' ELSE 'admin_role' END
    JOIN role_ancestors ra ON ra.descendent_id = r.id
    JOIN role_users ru ON ru.role_id = ra.ancestor_id AND ru.user_id = ${userId}
    WHERE o.webauthn_required <> 'none')`;
}

/** Whether the user must pass a second factor. */
export async function secondFactorRequired(db: Queryable, userId: number): Promise<boolean> {
  const [row] = await db.query<{ required: boolean }>(`SELECT ${secondFactorRequiredSql('$1::integer')} AS required`, [userId]);
  return row.required === true;
}
