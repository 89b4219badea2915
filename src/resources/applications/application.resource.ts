import { isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { removeObject } from '../../api/crud.ts';
import { ValidationError } from '../../api/errors.ts';
import { boolean, choice, generatedSecret, ref, text } from '../../api/fields.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import { recordAudit } from '../../audit/record.ts';
import { CENSORED, hashSecret, randomToken } from '../../auth/oauth2.ts';
import { isOrgAdmin } from '../organizations/organization.resource.ts';
import type { ApplicationRow, TokenRow } from '../../db/tables.ts';

/** Roles on an organization through which its OAuth2 applications are visible (AWX: its members). */
const APPLICATION_VIEW_ROLES = ['admin_role', 'auditor_role', 'member_role'];

const applicationAccess: AccessPolicy<ApplicationRow> = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx)
      ? null
      : `${alias}.organization_id IN (${objectsWithRole('organization', APPLICATION_VIEW_ROLES, params.add(ctx.user?.id ?? 0))})`,
  // Organization administrators manage their organization's applications.
  canCreate: async (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user) return false;
    if (typeof values.organization === 'number') return isOrgAdmin(ctx, tx, values.organization);
    const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
    return rows.length > 0;
  },
  canChange: async (ctx, tx, row, values) =>
    (await isOrgAdmin(ctx, tx, row.organization_id)) &&
    (typeof values.organization !== 'number' || values.organization === row.organization_id || (await isOrgAdmin(ctx, tx, values.organization))),
  canDelete: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  canAttach: () => false,
};

/** Each redirect URI must be an absolute http(s) URL without a fragment; authorization-code applications need one. */
function checkRedirectUris(uris: string, grantType: string): void {
  const list = uris.split(/\s+/).filter(Boolean);
  if (!list.length && grantType === 'authorization-code') {
    throw ValidationError.field('redirect_uris', 'Redirect URIs cannot be empty with grant type authorization-code.');
  }
  for (const uri of list) {
    let url: URL | null = null;
    try {
      url = new URL(uri);
    } catch {
      // reported below
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.hash) {
      throw ValidationError.field('redirect_uris', `Enter valid URIs: "${uri}" is not an absolute http or https URL without a fragment.`);
    }
  }
}

export const applications = defineResource<ApplicationRow>({
  name: 'o_auth2_application',
  plural: 'applications',
  table: 'applications',
  label: 'OAuth 2 Application List',
  description: 'OAuth 2 applications: clients that obtain tokens for users at /api/o/token/.',
  fields: {
    name: text({ required: true, maxLength: 255, allowBlank: false, helpText: 'Name of this application.' }),
    description: text({ helpText: 'Optional description of this application.' }),
    client_id: text({ readOnly: true, label: 'Client ID', helpText: 'Identifies the application to the OAuth2 endpoints; made by the service.' }),
    client_secret: generatedSecret({
      column: 'client_secret_hash',
      label: 'Client Secret',
      helpText: 'Used for more stringent verification of access to an application when creating a token. Shown only when the application is created.',
      generate: () => randomToken(64),
      store: hashSecret,
      censor: CENSORED,
    }),
    client_type: choice(
      [
        ['confidential', 'Confidential'],
        ['public', 'Public'],
      ],
      { required: true, helpText: 'Set to Public or Confidential depending on how secure the client device is.' },
    ),
    redirect_uris: text({ label: 'Redirect URIs', helpText: 'Allowed URIs list, space separated' }),
    authorization_grant_type: choice(
      [
        ['authorization-code', 'Authorization code'],
        ['password', 'Resource owner password-based'],
      ],
      { required: true, helpText: 'The Grant type the user must use to acquire tokens for this application.' },
    ),
    skip_authorization: boolean({ helpText: 'Set True to skip authorization step for completely trusted applications.' }),
    organization: ref('organization', { required: true, helpText: 'Organization containing this application.' }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  summaryColumns: ['id', 'name', 'description'],
  unique: [['organization', 'name']],
  related: {
    tokens: reverse('o_auth2_access_token', 'tokens', 'application_id', 'application'),
  },
  access: applicationAccess,
  hooks: {
    beforeWrite(_tx, _ctx, values, existing) {
      if (!existing) values.client_id = randomToken(40);
      const uris = (values.redirect_uris ?? existing?.redirect_uris ?? '') as string;
      const grantType = (values.authorization_grant_type ?? existing?.authorization_grant_type) as string;
      checkRedirectUris(uris, grantType);
    },
    async afterWrite(tx, ctx, row, existing) {
      if (existing) return;
      await recordAudit(tx, {
        type: 'application.created',
        ctx,
        target: { type: 'o_auth2_application', id: row.id, name: row.name },
        detail: {
          organization: row.organization_id,
          client_id: row.client_id,
          client_type: row.client_type,
          authorization_grant_type: row.authorization_grant_type,
        },
      });
    },
    /** Its tokens go with the application, each revoked and recorded. */
    async beforeDelete(tx, ctx, row) {
      const tokens = ctx.service.resources.get('o_auth2_access_token');
      for (const token of await tx.query<TokenRow>('SELECT * FROM tokens WHERE application_id = $1 ORDER BY id FOR UPDATE', [row.id])) {
        await removeObject(tx, ctx, tokens, token);
      }
      await recordAudit(tx, {
        type: 'application.deleted',
        ctx,
        target: { type: 'o_auth2_application', id: row.id, name: row.name },
        detail: { organization: row.organization_id, client_id: row.client_id },
      });
    },
  },
});
