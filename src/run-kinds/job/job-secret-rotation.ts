/** Secrets jobs keep (credential passwords given at launch, survey password answers) take part in regenerate_secret_key. */
import type { Queryable } from '../../db/database.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { passwordPurpose } from '../../resources/job-templates/survey-spec.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';
import type { SecretStore } from '../../secrets/rotation.ts';
import { CREDENTIAL_PASSWORDS_PURPOSE } from '../../ansible/credential-passwords.ts';
import { pythonJson } from '../../api/python-json.ts';

export const jobCredentialPasswordSecrets: SecretStore = {
  name: 'job credential passwords',
  async reencrypt(tx: Queryable, recrypt) {
    const rows = await tx.query<{ id: number; credential_passwords: string }>(
      `SELECT id, credential_passwords FROM unified_jobs WHERE credential_passwords <> '' ORDER BY id FOR UPDATE`,
    );
    for (const row of rows) {
      await tx.query('UPDATE unified_jobs SET credential_passwords = $2 WHERE id = $1', [row.id, recrypt(CREDENTIAL_PASSWORDS_PURPOSE, row.credential_passwords)]);
    }
    return rows.length;
  },
};

export const jobSurveyPasswordSecrets: SecretStore = {
  name: 'job survey passwords',
  async reencrypt(tx: Queryable, recrypt) {
    const rows = await tx.query<{ id: number; extra_vars: string; survey_passwords: Record<string, string> }>(
      `SELECT id, extra_vars, survey_passwords FROM unified_jobs WHERE survey_passwords <> '{}'::jsonb ORDER BY id FOR UPDATE`,
    );
    let count = 0;
    for (const row of rows) {
      const vars = parseVariables(row.extra_vars);
      for (const name of Object.keys(row.survey_passwords)) {
        if (!isEncryptedSecret(vars[name])) continue;
        vars[name] = recrypt(passwordPurpose(name), vars[name] as string);
        count += 1;
      }
      await tx.query('UPDATE unified_jobs SET extra_vars = $2 WHERE id = $1', [row.id, pythonJson(vars)]);
    }
    return count;
  },
};
