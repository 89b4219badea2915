import { isEncryptedSecret } from '../../secrets/encryption.ts';
import type { SecretStore } from '../../secrets/rotation.ts';
import { inputPurpose } from './credential-inputs.ts';

// Credential inputs take part in regenerate_secret_key: every encrypted value, row by row.
export const credentialInputSecrets: SecretStore = {
  name: 'credential inputs',
  async reencrypt(tx, recrypt) {
    let count = 0;
    for (const row of await tx.query<{ id: number; inputs: Record<string, unknown> }>('SELECT id, inputs FROM credentials ORDER BY id FOR UPDATE')) {
      const inputs = { ...row.inputs };
      let changed = false;
      for (const [id, value] of Object.entries(inputs)) {
        if (!isEncryptedSecret(value)) continue;
        inputs[id] = recrypt(inputPurpose(id), value);
        changed = true;
        count += 1;
      }
      if (changed) await tx.query('UPDATE credentials SET inputs = $2::jsonb WHERE id = $1', [row.id, JSON.stringify(inputs)]);
    }
    return count;
  },
};
