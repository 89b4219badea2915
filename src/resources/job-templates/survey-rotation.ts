import type { Queryable } from '../../db/database.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';
import type { SecretStore } from '../../secrets/rotation.ts';
import { recryptHeaders } from './dynamic-choices/header-secrets.ts';
import { passwordPurpose, type Question, type SurveySpec } from './survey-spec.ts';

// Survey password defaults and the header values of dynamic choice sources, of job and workflow job templates, take part in regenerate_secret_key.
export const surveyPasswordSecrets: SecretStore = {
  name: 'survey passwords',
  async reencrypt(tx: Queryable, recrypt) {
    let count = 0;
    for (const table of ['job_templates', 'workflow_job_templates']) {
      const rows = await tx.query<{ id: number; survey_spec: SurveySpec }>(`SELECT id, survey_spec FROM ${table} WHERE jsonb_typeof(survey_spec->'spec') = 'array' ORDER BY id FOR UPDATE`);
      for (const row of rows) {
        let changed = false;
        const spec = (row.survey_spec.spec ?? []).map((asked) => {
          const headers = recryptHeaders(asked, recrypt);
          const q = headers.question as Question;
          if (headers.count) {
            changed = true;
            count += headers.count;
          }
          if (q.type !== 'password' || !isEncryptedSecret(q.default)) return q;
          changed = true;
          count += 1;
          return { ...q, default: recrypt(passwordPurpose(q.variable), q.default) };
        });
        if (changed) await tx.query(`UPDATE ${table} SET survey_spec = $2::jsonb WHERE id = $1`, [row.id, JSON.stringify({ ...row.survey_spec, spec })]);
      }
    }
    return count;
  },
};
