/** The lookup of each external credential type, by namespace (AWX's credential plugins). */
import { awsSecretsManagerLookup } from './aws-secrets-manager.ts';
import { azureKvLookup } from './azure-kv.ts';
import { centrifyLookup } from './centrify.ts';
import { ccpLookup, conjurLookup } from './cyberark.ts';
import { kvLookup, sshSign } from './hashivault.ts';
import { LookupFailed, type LookupBackend } from './lookup.ts';
import { dsvLookup, tssLookup } from './thycotic.ts';

const BACKENDS: Record<string, LookupBackend> = {
  hashivault_kv: kvLookup,
  hashivault_ssh: sshSign,
  aim: ccpLookup,
  conjur: conjurLookup,
  centrify_vault_kv: centrifyLookup,
  azure_kv: azureKvLookup,
  thycotic_dsv: dsvLookup,
  thycotic_tss: tssLookup,
  aws_secretsmanager_credential: awsSecretsManagerLookup,
};

export function lookupBackend(namespace: string | null): LookupBackend {
  const backend = namespace ? BACKENDS[namespace] : undefined;
  if (!backend) throw new LookupFailed(`Credential type ${namespace ?? '(custom)'} has no lookup.`);
  return backend;
}
