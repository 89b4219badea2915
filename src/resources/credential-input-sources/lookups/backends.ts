/** The lookup of each external credential type, by namespace (AWX's credential plugins). */
import { centrifyLookup } from './centrify.ts';
import { ccpLookup, conjurLookup } from './cyberark.ts';
import { kvLookup, sshSign } from './hashivault.ts';
import { LookupFailed, type LookupBackend } from './lookup.ts';

const notSupported = (name: string): LookupBackend => async () => {
  throw new LookupFailed(`Lookups from ${name} are not supported by this service yet.`);
};

const BACKENDS: Record<string, LookupBackend> = {
  hashivault_kv: kvLookup,
  hashivault_ssh: sshSign,
  aim: ccpLookup,
  conjur: conjurLookup,
  centrify_vault_kv: centrifyLookup,
  azure_kv: notSupported('Microsoft Azure Key Vault'),
  thycotic_dsv: notSupported('Thycotic DevOps Secrets Vault'),
  thycotic_tss: notSupported('Thycotic Secret Server'),
  aws_secretsmanager_credential: notSupported('AWS Secrets Manager'),
};

export function lookupBackend(namespace: string | null): LookupBackend {
  const backend = namespace ? BACKENDS[namespace] : undefined;
  if (!backend) throw new LookupFailed(`Credential type ${namespace ?? '(custom)'} has no lookup.`);
  return backend;
}
