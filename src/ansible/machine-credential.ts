import { commandLineValueProblem, optionArgument } from './option-values.ts';

/** How a Machine credential reaches ansible-runner: command line options, prompt answers, the SSH key. */
export interface MachineAccess {
  cmdline: string[];
  /** ansible-runner's env/passwords: prompt pattern -> answer. */
  passwords: Record<string, string>;
  sshKey: string | null;
  secrets: string[];
}

/**
 * An input given as an option's value: `--flag=value`, so it cannot be read as an option. Checked
 * again here as AWX's sanitize_jinja does at run time (Ansible templates the remote and become
 * users), for credentials stored before the check on save.
 */
function option(flag: string, id: string, value: string): string {
  const problem = commandLineValueProblem(value);
  if (problem) throw new Error(`${id}: ${problem}`);
  return optionArgument(flag, value);
}

/** Options and answers for a Machine credential's inputs (as AWX's build_args / build_passwords do). */
export function machineAccess(inputs: Record<string, unknown> | null): MachineAccess {
  const access: MachineAccess = { cmdline: [], passwords: {}, sshKey: null, secrets: [] };
  if (!inputs) return access;
  const text = (name: string) => (typeof inputs[name] === 'string' ? (inputs[name] as string) : '');
  if (text('username')) access.cmdline.push(option('--user', 'username', text('username')));
  if (text('password')) {
    access.cmdline.push('--ask-pass');
    access.passwords['^SSH [pP]assword:\\s*?$'] = text('password');
    access.secrets.push(text('password'));
  }
  if (text('ssh_key_data')) {
    access.sshKey = text('ssh_key_data');
    if (text('ssh_key_unlock')) {
      access.passwords['^Enter passphrase for .*:\\s*?$'] = text('ssh_key_unlock');
      access.secrets.push(text('ssh_key_unlock'));
    }
  }
  if (text('become_method')) access.cmdline.push(option('--become-method', 'become_method', text('become_method')));
  if (text('become_username')) access.cmdline.push(option('--become-user', 'become_username', text('become_username')));
  if (text('become_password')) {
    access.cmdline.push('--ask-become-pass');
    access.passwords['^BECOME [pP]assword.*:\\s*?$'] = text('become_password');
    access.secrets.push(text('become_password'));
  }
  return access;
}

/** A Vault credential: its password answered at the prompt of its vault id. */
export function vaultAccess(inputs: Record<string, unknown>): MachineAccess {
  const password = typeof inputs.vault_password === 'string' ? inputs.vault_password : '';
  const id = typeof inputs.vault_id === 'string' ? inputs.vault_id : '';
  if (!password) return { cmdline: [], passwords: {}, sshKey: null, secrets: [] };
  if (id && id.includes('@')) throw new Error('vault_id: @ is not an allowed character');
  return id
    ? { cmdline: [option('--vault-id', 'vault_id', `${id}@prompt`)], passwords: { [`^Vault password \\(${escapeRegExp(id)}\\):\\s*?$`]: password }, sshKey: null, secrets: [password] }
    : { cmdline: ['--ask-vault-pass'], passwords: { '^Vault password:\\s*?$': password }, sshKey: null, secrets: [password] };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
