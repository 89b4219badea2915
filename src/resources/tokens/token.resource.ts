import { isSuperuser, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { actorId, type RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import { choice, datetime, FieldProblem, generatedSecret, ref, text, type Field } from '../../api/fields.ts';
import { isVisible } from '../../api/list.ts';
import { reverse, type Relation } from '../../api/relations.ts';
import { removeObject } from '../../api/crud.ts';
import { defineResource } from '../../api/resource.ts';
import { recordAudit } from '../../audit/record.ts';
import { accessTokenExpiry, CENSORED, hashSecret, randomToken, refuseExternalUser, TOKEN_SCOPES, type TokenScope } from '../../auth/oauth2.ts';
import type { Queryable } from '../../db/database.ts';
import type { TokenRow } from '../../db/tables.ts';

const SCOPE_MESSAGE = "Must be a simple space-separated string with allowed scopes ['read', 'write'].";

/**
 * Reads a requested scope: "read" or "write", or (as OAuth2 clients send them) both separated by
 * spaces, which is "write" since write includes read. Anything else is refused.
 */
export function parseScope(value: unknown): TokenScope | null {
  if (typeof value !== 'string') return null;
  const words = value.trim().split(/\s+/).filter(Boolean);
  if (!words.length || words.some((w) => !(TOKEN_SCOPES as readonly string[]).includes(w)) || new Set(words).size !== words.length) return null;
  return words.includes('write') ? 'write' : 'read';
}

function scopeField(): Field {
  const field = choice(TOKEN_SCOPES, {
    default: 'write',
    helpText: "Allowed scopes, further restricts user's permissions. Must be a simple space-separated string with allowed scopes ['read', 'write'].",
  });
  return {
    ...field,
    // Words separated by blanks, each a scope once.
    valueSchema: { type: 'string' },
    parse: (value) => {
      const scope = parseScope(value);
      if (scope === null) throw new FieldProblem(SCOPE_MESSAGE);
      return scope;
    },
  };
}

/** Whether the caller may use the application for a token: it must see it. A missing one is left to the reference check (400). */
async function mayUseApplication(ctx: RequestContext, tx: Queryable, applicationId: number): Promise<boolean> {
  const applications = ctx.service.resources.get('o_auth2_application');
  const exists = await tx.query('SELECT 1 FROM applications WHERE id = $1', [applicationId]);
  return !exists.length || isVisible(tx, ctx, applications, applicationId);
}

const ownsOrAdministers = (ctx: RequestContext, row: TokenRow) => isSuperuser(ctx) || (ctx.user !== null && ctx.user.id === row.user_id);

const tokenAccess: AccessPolicy<TokenRow> = {
  // Users see their own tokens; system administrators and auditors see all (their values never).
  visible: (ctx, alias, params) => (seesEverything(ctx) ? null : `${alias}.user_id = ${params.add(ctx.user?.id ?? 0)}`),
  canCreate: async (ctx, tx, values) => {
    if (!ctx.user) return false;
    // A token acts as the user it belongs to: nobody makes one for someone else, a superuser
    // included. Only the system (a management command) names another user.
    if (values.user !== undefined && values.user !== ctx.user.id && actorId(ctx) !== null) return false;
    if (typeof values.application === 'number') return mayUseApplication(ctx, tx, values.application);
    return true;
  },
  canChange: (ctx, _tx, row) => ownsOrAdministers(ctx, row),
  canDelete: (ctx, _tx, row) => ownsOrAdministers(ctx, row),
  canAttach: () => false,
};

const auditTarget = (row: TokenRow) => ({ type: 'o_auth2_access_token', id: row.id, name: row.description });
const auditDetail = (row: TokenRow) => ({
  user: row.user_id,
  application: row.application_id,
  scope: row.scope,
  expires: row.expires instanceof Date ? row.expires.toISOString() : row.expires,
});

export const tokens = defineResource<TokenRow>({
  name: 'o_auth2_access_token',
  plural: 'tokens',
  table: 'tokens',
  label: 'OAuth2 Token List',
  description:
    'OAuth2 access tokens. POST creates one for you; its `token` (and `refresh_token` when it has an application) ' +
    'appears only in that response. Send it as `Authorization: Bearer <token>`. DELETE revokes it at once.',
  fields: {
    description: text({ helpText: 'Optional description of this access token.' }),
    user: ref('user', { readOnly: true, helpText: 'The user representing the token owner' }),
    token: generatedSecret({ column: 'token_hash', generate: () => randomToken(), store: hashSecret, censor: CENSORED }),
    refresh_token: generatedSecret({
      column: 'refresh_token_hash',
      generate: (values) => (typeof values.application === 'number' ? randomToken() : null),
      store: hashSecret,
      censor: CENSORED,
    }),
    application: ref('o_auth2_application', { writeOnce: true, helpText: 'The application the token was issued to; null for a personal access token.' }),
    expires: datetime({ readOnly: true }),
    scope: scopeField(),
    last_used: datetime({ readOnly: true, helpText: 'When the token last authenticated a request (to the minute).' }),
  },
  search: ['description'],
  summaryColumns: ['id', 'description', 'scope'],
  access: tokenAccess,
  hooks: {
    async beforeWrite(tx, ctx, values, existing) {
      if (existing) return;
      if (!ctx.user) throw forbidden();
      if (values.user === undefined) values.user = ctx.user.id;
      await refuseExternalUser(tx, ctx.service.settings, values.user as number);
      values.expires = accessTokenExpiry(ctx.service.settings);
    },
    async afterWrite(tx, ctx, row, existing) {
      if (existing) return;
      await recordAudit(tx, { type: 'token.created', ctx, target: auditTarget(row), detail: auditDetail(row) });
    },
    async beforeDelete(tx, ctx, row) {
      await recordAudit(tx, { type: 'token.revoked', ctx, target: auditTarget(row), detail: auditDetail(row) });
    },
  },
});

/** /users/{id}/tokens/: the user's tokens; a POST there makes one for the caller, if that is the user. */
export const userTokens: Relation = reverse('o_auth2_access_token', 'tokens', 'user_id', 'user');

/** /users/{id}/personal_tokens/: the user's tokens without an application; POST as for userTokens. */
export const userPersonalTokens: Relation = {
  ...reverse('o_auth2_access_token', '(SELECT id, user_id FROM tokens WHERE application_id IS NULL) AS personal_tokens', 'user_id', 'user'),
  createValues: { application: null },
};

/** Revokes every token of a user (who is being deleted), each with its activity and audit records. */
export async function revokeTokensOfUser(tx: Queryable, ctx: RequestContext, userId: number): Promise<void> {
  for (const token of await tx.query<TokenRow>('SELECT * FROM tokens WHERE user_id = $1 ORDER BY id FOR UPDATE', [userId])) {
    await removeObject(tx, ctx, tokens, token);
  }
}
