/**
 * Injects credentials into a run: environment variables, extra variables and files, from each
 * credential type's injector templates (custom types, and managed types that have them) or from
 * the builtin injectors of the managed cloud types.
 */
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../../db/database.ts';
import { compileTemplate, templateInputs, TemplateProblem } from '../credential-types/injector-template.ts';
import { RenderBudget, renderTemplate, type RenderScope } from '../credential-types/template-render.ts';
import { fieldsOf, type Injectors } from '../credential-types/type-schema.ts';
import { templateNames } from '../credential-types/type-validation.ts';
import { clearInputs, type CredentialTypeRow, type Inputs } from './credential-inputs.ts';
import { loadCredential } from './credential-use.ts';
import { lookedUpInputs, STRICT_LOOKUPS, type LookupContext } from './dynamic-inputs.ts';
import { BUILTIN_INJECTORS, type InjectionTarget } from './managed-injectors.ts';

export interface CredentialInjection {
  env: Record<string, string>;
  extraVars: Record<string, unknown>;
  /** Every file written (0600, in the private directory). */
  files: string[];
  /** Every secret value in clear, longest first, for scrubbing output. */
  secrets: string[];
}

/** An injector template that cannot be rendered (too much output, too slow...). */
export class InjectionError extends Error {}

async function writePrivateFile(privateDir: string, content: string, files: string[]): Promise<string> {
  const file = path.join(privateDir, `credential_${randomBytes(8).toString('hex')}`);
  await writeFile(file, content, { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  files.push(file);
  return file;
}

/** The names templates render with, as AWX builds them: set inputs, false for unset booleans, keys ending in a newline. */
function templateValues(type: CredentialTypeRow, stored: Inputs, clear: Inputs): Record<string, string | boolean> {
  const values: Record<string, string | boolean> = {};
  for (const id of Object.keys(stored)) {
    const value = clear[id];
    if (typeof value === 'boolean' || (typeof value === 'string' && value !== '')) values[id] = value;
  }
  for (const field of fieldsOf(type.inputs)) {
    if (field.type === 'boolean' && !(field.id in stored)) values[field.id] = false;
    const key = values[field.id];
    if (field.format === 'ssh_private_key' && typeof key === 'string' && !key.endsWith('\n')) values[field.id] = `${key}\n`;
  }
  return values;
}

async function injectTemplates(
  type: CredentialTypeRow,
  stored: Inputs,
  clear: Inputs,
  privateDir: string,
  out: CredentialInjection,
  budget: RenderBudget,
): Promise<void> {
  const injectors = type.injectors as Injectors;
  const names = templateNames(type.inputs, injectors);
  const secretIds = new Set(fieldsOf(type.inputs).filter((f) => f.secret).map((f) => f.id));
  const scope: RenderScope = { values: templateValues(type, stored, clear) };
  const render = (section: string, key: string, source: string) => {
    try {
      const compiled = compileTemplate(source, names);
      const text = renderTemplate(compiled, scope, budget);
      if (section !== 'file' && text && [...templateInputs(compiled)].some((id) => secretIds.has(id))) out.secrets.push(text);
      return text;
    } catch (err) {
      if (err instanceof TemplateProblem) throw new InjectionError(`Credential type "${type.name}": ${section}.${key} ${err.message}`);
      throw err;
    }
  };
  const files: Record<string, string> = {};
  for (const [key, source] of Object.entries(injectors.file ?? {})) {
    const file = await writePrivateFile(privateDir, render('file', key, source), out.files);
    if (key === 'template') scope.filename = file;
    else scope.filename = Object.assign(files, { [key.slice('template.'.length)]: file });
  }
  for (const [name, source] of Object.entries(injectors.env ?? {})) out.env[name] = render('env', name, source);
  for (const [name, source] of Object.entries(injectors.extra_vars ?? {})) out.extraVars[name] = render('extra_vars', name, source);
}

/**
 * Renders the injectors of each credential (later credentials win on the same name). Files are
 * written 0600 in `privateDir`. Inputs from input sources are looked up now (LookupFailed when
 * one fails). Throws SecretDecryptionError when a secret cannot be decrypted,
 * InjectionError when a template cannot be rendered within its limits.
 */
export async function credentialInjection(db: Queryable, credentialIds: number[], privateDir: string, lookups: LookupContext = STRICT_LOOKUPS): Promise<CredentialInjection> {
  const out: CredentialInjection = { env: {}, extraVars: {}, files: [], secrets: [] };
  const budget = new RenderBudget();
  for (const id of credentialIds) {
    const { name, type, stored: own } = await loadCredential(db, id);
    const looked = await lookedUpInputs(db, id, name, lookups);
    const clear = { ...clearInputs(type, own), ...looked };
    // What a secret store answers is kept out of the output whether or not its input is secret.
    const stored: Inputs = { ...own, ...looked };
    for (const field of fieldsOf(type.inputs)) {
      const value = clear[field.id];
      if ((field.secret || field.id in looked) && typeof value === 'string' && value !== '' && value !== 'ASK') out.secrets.push(value);
    }
    if (Object.keys(type.injectors ?? {}).length) await injectTemplates(type, stored, clear, privateDir, out, budget);
    else if (type.managed && type.namespace && BUILTIN_INJECTORS[type.namespace]) {
      const target: InjectionTarget = { env: out.env, writeFile: (content) => writePrivateFile(privateDir, content, out.files) };
      await BUILTIN_INJECTORS[type.namespace](clear, target);
    }
  }
  out.secrets = [...new Set(out.secrets)].sort((a, b) => b.length - a.length);
  return out;
}
