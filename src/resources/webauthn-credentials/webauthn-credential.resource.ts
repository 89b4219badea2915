import { isSuperuser, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { boolean, datetime, integer, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { recordAudit } from '../../audit/record.ts';
import type { WebauthnCredentialRow } from '../../db/tables.ts';

const owns = (ctx: RequestContext, row: WebauthnCredentialRow) => ctx.user !== null && ctx.user.id === row.user_id;

/**
 * Everyone sees and renames his own passkeys. System administrators and auditors see everyone's (as
 * tokens); a superuser may delete anyone's, which is how a user who lost his only passkey, in an
 * organization that asks for one, gets to register a new one.
 */
const credentialAccess: AccessPolicy<WebauthnCredentialRow> = {
  visible: (ctx, alias, params) => (seesEverything(ctx) ? null : `${alias}.user_id = ${params.add(ctx.user?.id ?? 0)}`),
  // Created by the registration ceremony only (POST /api/v2/webauthn/register/complete/).
  canCreate: () => false,
  canChange: (ctx, _tx, row) => owns(ctx, row),
  canDelete: (ctx, _tx, row) => owns(ctx, row) || isSuperuser(ctx),
  canAttach: () => false,
};

const auditOf = (ctx: RequestContext, row: WebauthnCredentialRow) => ({
  ctx,
  target: { type: 'webauthn_credential', id: row.id, name: row.label },
  client: { remoteAddr: ctx.clientIp ?? '', userAgent: '' },
});

export const webauthnCredentials = defineResource<WebauthnCredentialRow>({
  name: 'webauthn_credential',
  plural: 'webauthn/credentials',
  table: 'webauthn_credentials',
  label: 'WebAuthn Credential List',
  description:
    'Registered passkeys and security keys: your own (system administrators and auditors see everyone\'s). ' +
    'Register one through /api/v2/webauthn/register/begin/ and complete/; PATCH renames one ({label}), DELETE removes it.',
  fields: {
    label: text({ required: true, maxLength: 100, allowBlank: false, helpText: 'A name for the passkey ("Work laptop").' }),
    user: ref('user', { readOnly: true, helpText: 'Whose passkey this is.' }),
    credential_id: text({ readOnly: true, label: 'Credential ID', helpText: 'The id the authenticator gave the credential (base64url).' }),
    sign_count: integer({ readOnly: true, helpText: 'The signature counter of its last use (0 for authenticators without one).' }),
    transports: json({ readOnly: true, helpText: 'How the browser reaches the authenticator (usb, nfc, ble, internal, hybrid).' }),
    aaguid: text({ readOnly: true, label: 'AAGUID', helpText: 'The model of authenticator, as it says (all zeros when it does not).' }),
    backup_eligible: boolean({ readOnly: true, helpText: 'A synced passkey (it may be copied to the user\'s other devices).' }),
    backed_up: boolean({ readOnly: true, helpText: 'The passkey was backed up when last used.' }),
    attestation_format: text({ readOnly: true, helpText: 'The attestation statement format at registration (none, packed...).' }),
    last_used: datetime({ readOnly: true, nullable: true, helpText: 'When it last signed in or passed a second factor.' }),
  },
  search: ['label'],
  ordering: 'id',
  summaryColumns: ['id', 'label'],
  access: credentialAccess,
  operations: { create: false },
  hooks: {
    async afterWrite(tx, ctx, row, existing) {
      if (existing && existing.label !== row.label) {
        await recordAudit(tx, { type: 'webauthn.renamed', ...auditOf(ctx, row), detail: { user: row.user_id, old_label: existing.label } });
      }
    },
    async beforeDelete(tx, ctx, row) {
      await recordAudit(tx, { type: 'webauthn.deleted', ...auditOf(ctx, row), detail: { user: row.user_id, credential_id: row.credential_id } });
    },
  },
});
