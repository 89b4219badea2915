/**
 * Credential inputs set to "ASK" are given at launch under AWX's names (ssh_password,
 * become_password, ssh_key_unlock, vault_password or vault_password.<vault_id>); a job keeps them
 * encrypted and only its run reads them.
 */
import { ValidationError } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';
import { decryptSecret, encryptSecret } from '../secrets/encryption.ts';

export const CREDENTIAL_PASSWORDS_PURPOSE = 'job.credential_passwords';

/** Machine credential input -> the name its value is asked for at launch. */
const MACHINE_PROMPTS: Record<string, string> = { password: 'ssh_password', become_password: 'become_password', ssh_key_unlock: 'ssh_key_unlock' };

const vaultPrompt = (inputs: Record<string, unknown>) => (inputs.vault_id ? `vault_password.${String(inputs.vault_id)}` : 'vault_password');

/** The passwords a credential of `kind` with these stored inputs needs at launch, as AWX names them. */
export function passwordsNeeded(kind: string, inputs: Record<string, unknown>): string[] {
  if (kind === 'ssh') return Object.entries(MACHINE_PROMPTS).filter(([input]) => inputs[input] === 'ASK').map(([, name]) => name);
  if (kind === 'vault' && inputs.vault_password === 'ASK') return [vaultPrompt(inputs)];
  return [];
}

/** Every password the given credentials need at launch, in credential order. */
export async function passwordsNeededFor(db: Queryable, credentialIds: readonly number[]): Promise<string[]> {
  if (!credentialIds.length) return [];
  const rows = await db.query<{ kind: string; inputs: Record<string, unknown> | null }>(
    `SELECT t.kind, c.inputs FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id
     WHERE c.id = ANY($1::integer[]) ORDER BY c.id`,
    [credentialIds],
  );
  return rows.flatMap((r) => passwordsNeeded(r.kind, r.inputs ?? {}));
}

/**
 * Reads credential_passwords of a launch or relaunch: the needed ones given (others are ignored)
 * and the names of those missing or empty.
 */
export function readCredentialPasswords(needed: readonly string[], given: unknown): { passwords: Record<string, string>; missing: string[] } {
  if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) {
    throw ValidationError.field('credential_passwords', 'Expected a dictionary of passwords.');
  }
  const provided = (given ?? {}) as Record<string, unknown>;
  const isGiven = (name: string) => typeof provided[name] === 'string' && provided[name] !== '';
  return {
    passwords: Object.fromEntries(needed.filter(isGiven).map((name) => [name, provided[name] as string])),
    missing: needed.filter((name) => !isGiven(name)),
  };
}

export const sealCredentialPasswords = (passwords: Record<string, string>): string =>
  Object.keys(passwords).length ? encryptSecret(CREDENTIAL_PASSWORDS_PURPOSE, JSON.stringify(passwords)) : '';

/** The passwords a run was given at launch, in clear (SecretDecryptionError when SVC_SECRET_KEY changed). */
export async function launchPasswordsOf(db: Queryable, runId: number): Promise<Record<string, string>> {
  const [row] = await db.query<{ credential_passwords: string }>('SELECT credential_passwords FROM unified_jobs WHERE id = $1', [runId]);
  return row?.credential_passwords ? (JSON.parse(decryptSecret(CREDENTIAL_PASSWORDS_PURPOSE, row.credential_passwords)) as Record<string, string>) : {};
}

/** A credential's inputs with each "ASK" replaced by the password given at launch. */
export function withLaunchPasswords(kind: string, inputs: Record<string, unknown>, passwords: Record<string, string>): Record<string, unknown> {
  const filled = { ...inputs };
  if (kind === 'ssh') {
    for (const [input, name] of Object.entries(MACHINE_PROMPTS)) if (filled[input] === 'ASK') filled[input] = passwords[name] ?? '';
  } else if (kind === 'vault' && filled.vault_password === 'ASK') {
    filled.vault_password = passwords[vaultPrompt(inputs)] ?? '';
  }
  return filled;
}
