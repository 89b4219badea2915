import type { Queryable } from '../../db/database.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';
import type { SecretStore } from '../../secrets/rotation.ts';
import { passwordPurpose, type SurveySpec } from './survey-spec.ts';

// Survey password defaults take part in regenerate_secret_key.
export const surveyPasswordSecrets: SecretStore = {
  name: 'survey passwords',
  async reencrypt(tx: Queryable, recrypt) {
    let count = 0;
    const rows = await tx.query<{ id: number; survey_spec: SurveySpec }>(`SELECT id, survey_spec FROM job_templates WHERE jsonb_typeof(survey_spec->'spec') = 'array' ORDER BY id FOR UPDATE`);
    for (const row of rows) {
      let changed = false;
      const spec = (row.survey_spec.spec ?? []).map((q) => {
        if (q.type !== 'password' || !isEncryptedSecret(q.default)) return q;
        changed = true;
        count += 1;
        return { ...q, default: recrypt(passwordPurpose(q.variable), q.default) };
      });
      if (changed) await tx.query('UPDATE job_templates SET survey_spec = $2::jsonb WHERE id = $1', [row.id, JSON.stringify({ ...row.survey_spec, spec })]);
    }
    return count;
  },
};
