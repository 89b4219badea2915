/**
 * Answers to password questions a request keeps, and that a workflow job's nodes keep from it
 * (their extra_data), take part in regenerate_secret_key: each is encrypted for its variable, as
 * survey passwords are.
 */
import type { Queryable } from '../../db/database.ts';
import { ENCRYPTED_PREFIX, isEncryptedSecret } from '../../secrets/encryption.ts';
import type { Recrypt, SecretStore } from '../../secrets/rotation.ts';
import { passwordPurpose } from '../job-templates/survey-spec.ts';

type Answers = Record<string, unknown>;

/** The answers with each encrypted one re-encrypted, and how many were. */
function recrypted(answers: Answers, recrypt: Recrypt): { answers: Answers; count: number } {
  let count = 0;
  const out = Object.fromEntries(Object.entries(answers).map(([name, value]) => {
    if (!isEncryptedSecret(value)) return [name, value];
    count += 1;
    return [name, recrypt(passwordPurpose(name), value)];
  }));
  return { answers: out, count };
}

/** Whether a jsonb column holds an encrypted value somewhere (a cheap filter before the rows are read); $1 is the prefix. */
const holdsSecret = (column: string) => `strpos(${column}::text, $1) > 0`;

export const serviceRequestSecrets: SecretStore = {
  name: 'service request survey passwords',
  async reencrypt(tx: Queryable, recrypt) {
    let count = 0;
    const requests = await tx.query<{ id: number; extra_vars: Answers; node_survey_data: Record<string, Answers> }>(
      `SELECT id, extra_vars, node_survey_data FROM service_requests WHERE ${holdsSecret('extra_vars')} OR ${holdsSecret('node_survey_data')} ORDER BY id FOR UPDATE`,
      [ENCRYPTED_PREFIX],
    );
    for (const row of requests) {
      const own = recrypted(row.extra_vars ?? {}, recrypt);
      const nodes = Object.entries(row.node_survey_data ?? {}).map(([node, answers]) => [node, recrypted(answers, recrypt)] as const);
      count += own.count + nodes.reduce((n, [, r]) => n + r.count, 0);
      await tx.query('UPDATE service_requests SET extra_vars = $2::jsonb, node_survey_data = $3::jsonb WHERE id = $1', [
        row.id, JSON.stringify(own.answers), JSON.stringify(Object.fromEntries(nodes.map(([node, r]) => [node, r.answers]))),
      ]);
    }
    const nodes = await tx.query<{ id: number; extra_data: Answers }>(`SELECT id, extra_data FROM workflow_job_nodes WHERE ${holdsSecret('extra_data')} ORDER BY id FOR UPDATE`, [ENCRYPTED_PREFIX]);
    for (const node of nodes) {
      const { answers, count: n } = recrypted(node.extra_data ?? {}, recrypt);
      count += n;
      if (n) await tx.query('UPDATE workflow_job_nodes SET extra_data = $2::jsonb WHERE id = $1', [node.id, JSON.stringify(answers)]);
    }
    return count;
  },
};
