import type { Queryable } from '../../db/database.ts';
import { ident } from '../../api/sql.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';
import type { SecretStore } from '../../secrets/rotation.ts';
import type { RunKind } from '../../runs/run-kind.ts';
import { WEBHOOK_KEY_PURPOSE } from './webhook-fields.ts';

/** The webhook keys of a table (templates, event rules) take part in regenerate_secret_key. */
export const webhookKeySecrets = (table: string, name: string, purpose = WEBHOOK_KEY_PURPOSE): SecretStore => ({
  name,
  async reencrypt(tx: Queryable, recrypt) {
    const rows = await tx.query<{ id: number; webhook_key: string }>(`SELECT id, webhook_key FROM ${ident(table)} WHERE webhook_key <> '' ORDER BY id FOR UPDATE`);
    let count = 0;
    for (const row of rows) {
      if (!isEncryptedSecret(row.webhook_key)) continue;
      await tx.query(`UPDATE ${ident(table)} SET webhook_key = $2 WHERE id = $1`, [row.id, recrypt(purpose, row.webhook_key)]);
      count += 1;
    }
    return count;
  },
});

/** The webhook keys of the templates of every run kind with a webhook launcher ("job template webhook keys"). */
export const templateWebhookKeySecrets = (kinds: readonly RunKind[]): SecretStore[] =>
  kinds.filter((k) => k.launchers?.webhook).map((k) => {
    if (!k.template) throw new Error(`run kind ${k.name} has a webhook launcher but no template facet`);
    return webhookKeySecrets(k.template.table, `${k.template.title.toLowerCase()} webhook keys`);
  });
