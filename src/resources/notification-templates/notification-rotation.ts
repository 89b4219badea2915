import { isEncryptedSecret } from '../../secrets/encryption.ts';
import type { SecretStore } from '../../secrets/rotation.ts';
import { configPurpose } from './configuration.ts';

// The secret fields of notification configurations take part in regenerate_secret_key.
export const notificationTemplateSecrets: SecretStore = {
  name: 'notification templates',
  async reencrypt(tx, recrypt) {
    let count = 0;
    const rows = await tx.query<{ id: number; notification_configuration: Record<string, unknown> }>(
      'SELECT id, notification_configuration FROM notification_templates ORDER BY id FOR UPDATE',
    );
    for (const row of rows) {
      const configuration = { ...row.notification_configuration };
      let changed = false;
      for (const [field, value] of Object.entries(configuration)) {
        if (!isEncryptedSecret(value)) continue;
        configuration[field] = recrypt(configPurpose(field), value);
        changed = true;
        count += 1;
      }
      if (changed) await tx.query('UPDATE notification_templates SET notification_configuration = $2::jsonb WHERE id = $1', [row.id, JSON.stringify(configuration)]);
    }
    return count;
  },
};
