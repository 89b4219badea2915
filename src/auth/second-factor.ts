/**
 * Who must pass a second factor (a registered passkey, docs/webauthn.md), and the wall a session
 * that has not passed it meets. An organization's `webauthn_required` decides for the people of
 * the organization: `admins` for those holding its admin_role, `all` for everyone holding any role
 * in it (its read_role: members, admins, auditors and its other roles). Superusers administer every
 * organization, so any organization asking for a second factor asks it of them; system auditors
 * read every organization, so any asking it of everyone asks it of them.
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

/**
 * SQL (a boolean) of whether the user must pass a second factor, given SQL expressions of the
 * user's id and flags (columns of a users row, or parameters).
 */
export function secondFactorRequiredSql(user: { id: string; isSuperuser: string; isSystemAuditor: string }): string {
  return `EXISTS (
    SELECT 1 FROM organizations o
    WHERE o.webauthn_required <> 'none' AND (
      ${user.isSuperuser}
      OR (o.webauthn_required = 'all' AND ${user.isSystemAuditor})
      OR EXISTS (
        SELECT 1 FROM roles r
        JOIN role_ancestors ra ON ra.descendent_id = r.id
        JOIN role_users ru ON ru.role_id = ra.ancestor_id
        WHERE r.content_type = 'organization' AND r.object_id = o.id AND ru.user_id = ${user.id}
          AND r.role_field = CASE o.webauthn_required WHEN 'all' THEN 'read_role' ELSE 'admin_role' END)))`;
}

/** Whether the user must pass a second factor (false for a user that does not exist). */
export async function secondFactorRequired(db: Queryable, userId: number): Promise<boolean> {
  const [row] = await db.query<{ required: boolean }>(
    `SELECT ${secondFactorRequiredSql({ id: 'u.id', isSuperuser: 'u.is_superuser', isSystemAuditor: 'u.is_system_auditor' })} AS required
     FROM users u WHERE u.id = $1`,
    [userId],
  );
  return row?.required === true;
}
