import { checkTenantBoundary } from '../../api/tenant-boundary.ts';
import { hasObjectRole, isSuperuser } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ApiError, ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { passwordsNeeded, readCredentialPasswords, sealCredentialPasswords } from '../../ansible/credential-passwords.ts';
import { INLINE_JINJA, moduleArgsHaveJinja } from '../../ansible/jinja-markers.ts';
import { optionValueErrors } from '../../ansible/option-values.ts';
import { missingInputsProblem } from '../../resources/credentials/credential-use.ts';

/** What a Machine credential may ask for at launch, given as body keys (AWX's names). */
export const LAUNCH_PASSWORDS = ['ssh_password', 'become_password', 'ssh_key_unlock'];

/** Modules whose arguments are the command itself. */
const NEEDS_ARGS = new Set(['command', 'shell']);

/**
 * May the caller run this command? AWX's AdHocCommandAccess.can_add: adhoc_role on the inventory
 * and use_role on the credential. An object that does not exist is left to validation (400).
 */
export async function mayRunAdHoc(ctx: RequestContext, tx: Queryable, values: Values): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  const checks = [
    { contentType: 'inventory', table: 'inventories', role: 'adhoc_role', id: values.inventory },
    { contentType: 'credential', table: 'credentials', role: 'use_role', id: values.credential },
  ];
  for (const { contentType, table, role, id } of checks) {
    if (typeof id !== 'number') continue;
    const [exists] = await tx.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id]);
    if (exists && !(await hasObjectRole(ctx, tx, contentType, id, role))) return false;
  }
  return true;
}

/**
 * Checks a new command as AWX's serializer and model do, and completes its values: the module
 * must be allowed by AD_HOC_COMMANDS (command by default), command and shell need arguments,
 * module arguments may not hold Jinja (any opening, once Ansible has decoded their escapes: see
 * jinja-markers.ts), the limit is a host pattern and no option or file, extra vars may not set
 * ansible_* variables, and the credential must be a Machine credential. Relaunches come here too.
 */
export async function checkAdHocCommand(tx: Queryable, ctx: RequestContext, values: Values): Promise<void> {
  const errors: FieldErrors = {};
  const { settings } = ctx.service;
  const allowed = settings.get<string[]>('AD_HOC_COMMANDS');
  const moduleName = String(values.module_name ?? '').trim() || (allowed.includes('command') ? 'command' : '');
  values.module_name = moduleName;
  if (!moduleName) errors.module_name = ['This field may not be blank.'];
  else if (!allowed.includes(moduleName)) errors.module_name = [`"${moduleName}" is not a valid choice.`];
  const moduleArgs = String(values.module_args ?? '');
  if (NEEDS_ARGS.has(moduleName) && !moduleArgs.trim()) errors.module_args = [`No argument passed to ${moduleName} module.`];
  else if (moduleArgsHaveJinja(moduleArgs)) errors.module_args = [INLINE_JINJA];
  Object.assign(errors, optionValueErrors(values, { limit: 'pattern' }));

  const prohibited = Object.keys(parseVariables(values.extra_vars as string)).filter((name) => name.startsWith('ansible_'));
  if (prohibited.length) errors.extra_vars = [`${prohibited.sort().reverse().join(', ')} are prohibited from use in ad hoc commands.`];

  const max = Number(settings.get('MAX_FORKS'));
  if (typeof values.forks === 'number' && max > 0 && values.forks > max) errors.forks = [`Maximum number of forks (${max}) exceeded.`];

  if (typeof values.credential === 'number') {
    const [credential] = await tx.query<{ kind: string; inputs: Record<string, unknown> | null }>(
      'SELECT t.kind, c.inputs FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1',
      [values.credential],
    );
    if (credential && credential.kind !== 'ssh') errors.credential = ['You must provide a machine / SSH credential.'];
    const unusable = credential && !errors.credential ? await missingInputsProblem(tx, [values.credential], 'Ad Hoc Command') : null;
    if (unusable) errors.credential = [unusable];
    // As AWX: the passwords the credential asks for at launch come with the command, else 400.
    const { passwords, missing } = readCredentialPasswords(credential ? passwordsNeeded(credential.kind, credential.inputs ?? {}) : [], values);
    if (!Object.keys(errors).length && missing.length) throw new ApiError(400, { passwords_needed_to_start: missing });
    values.credential_passwords = sealCredentialPasswords(passwords);
  }
  for (const name of LAUNCH_PASSWORDS) delete values[name];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  await checkTenantBoundary(tx, ctx.service.resources.get('ad_hoc_command'), values, null);
}
