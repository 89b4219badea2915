/**
 * What saving a template with webhooks does (AWX's WebhookTemplateMixin.save and its
 * serializers' validate): a new or changed webhook_service makes a new key, clearing it clears
 * the key and the credential; the credential is a token of the service's kind the caller may use.
 */
import type { RequestContext } from '../../api/context.ts';
import { ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { ident } from '../../api/sql.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { newStoredWebhookKey } from './webhook-fields.ts';

const valueOf = (values: Values, existing: Row | null, name: string, column = name) => (name in values ? values[name] : existing?.[column]);

/** beforeWrite: clears the credential with the service, and checks the credential against the service. */
export async function checkWebhookValues(tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): Promise<void> {
  if ('webhook_service' in values && !values.webhook_service && !('webhook_credential' in values) && existing?.webhook_credential_id) values.webhook_credential = null;
  const credentialId = valueOf(values, existing, 'webhook_credential', 'webhook_credential_id') as number | null | undefined;
  if (credentialId === null || credentialId === undefined) return;
  if ('webhook_credential' in values && credentialId !== existing?.webhook_credential_id) await assertCanUseCredential(ctx, tx, credentialId, 'webhook_credential');
  const [type] = await tx.query<{ kind: string; namespace: string | null }>(
    'SELECT t.kind, t.namespace FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1',
    [credentialId],
  );
  if (type?.kind !== 'token') throw ValidationError.field('webhook_credential', 'Must be a Personal Access Token.');
  const service = valueOf(values, existing, 'webhook_service') as string | undefined;
  if (!service || type.namespace !== `${service}_token`) throw ValidationError.field('webhook_credential', 'Must match the selected webhook service.');
}

/** afterWrite of the template's `table`: a key for a new service, none without one. */
export async function syncWebhookKey(tx: Queryable, table: string, row: Row, existing: Row | null): Promise<void> {
  if (existing && existing.webhook_service === row.webhook_service) return;
  const key = row.webhook_service ? newStoredWebhookKey() : '';
  if (!key && !row.webhook_key) return;
  await tx.query(`UPDATE ${ident(table)} SET webhook_key = $2 WHERE id = $1`, [row.id, key]);
  row.webhook_key = key;
}
