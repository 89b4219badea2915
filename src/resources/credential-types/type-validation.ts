/** Validation of a custom credential type's `inputs` and `injectors`, with AWX's rules and messages. */
import { ValidationError } from '../../api/errors.ts';
import { compileTemplate, TemplateProblem, type TemplateNames } from './injector-template.ts';
import { fieldsOf, type InputField, type Injectors, type TypeInputs } from './type-schema.ts';

const IDENTIFIER = /^[a-zA-Z_]+[a-zA-Z0-9_]*$/;
const FIELD_KEYS = new Set(['id', 'label', 'type', 'format', 'choices', 'help_text', 'multiline', 'secret', 'ask_at_runtime', 'default']);
const STRING_ONLY = ['choices', 'multiline', 'format', 'secret'] as const;

// Variables a credential may not set: they steer Ansible or the run itself (AWX's ENV_BLOCKLIST, and the loader's).
const ENV_BLOCKLIST = new Set([
  'VIRTUAL_ENV', 'PATH', 'PYTHONPATH', 'JOB_ID', 'INVENTORY_ID', 'INVENTORY_SOURCE_ID', 'INVENTORY_UPDATE_ID', 'AD_HOC_COMMAND_ID',
  'REST_API_URL', 'REST_API_TOKEN', 'MAX_EVENT_RES', 'CALLBACK_QUEUE', 'CALLBACK_CONNECTION', 'CACHE', 'JOB_CALLBACK_DEBUG',
  'INVENTORY_HOSTVARS', 'AWX_HOST', 'PROJECT_REVISION', 'SUPERVISOR_CONFIG_PATH', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'HOME', 'PWD',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (field: 'inputs' | 'injectors', message: string) => new ValidationError({ [field]: [message] });

function checkField(raw: unknown, index: number, custom: boolean): InputField {
  if (!isObject(raw)) throw fail('inputs', `fields[${index}] must be an object.`);
  for (const key of Object.keys(raw)) if (!FIELD_KEYS.has(key)) throw fail('inputs', `fields[${index}]: unknown key "${key}".`);
  if (typeof raw.id !== 'string') throw fail('inputs', `fields[${index}]: 'id' is a required string.`);
  if (!IDENTIFIER.test(raw.id)) throw fail('inputs', `${raw.id} is an invalid variable name`);
  if (raw.id === 'tower') throw fail('inputs', '"tower" is a reserved field name');
  if (typeof raw.label !== 'string') throw fail('inputs', `fields[${index}] (${raw.id}): 'label' is a required string.`);
  const field = { ...raw, type: raw.type ?? 'string' } as InputField;
  if (field.type !== 'string' && field.type !== 'boolean') throw fail('inputs', `${raw.id}: type must be "string" or "boolean".`);
  if (custom && 'ask_at_runtime' in raw) throw fail('inputs', "'ask_at_runtime' is not supported for custom credentials.");
  for (const key of ['help_text'] as const) if (key in raw && typeof raw[key] !== 'string') throw fail('inputs', `${raw.id}: ${key} must be a string.`);
  for (const key of ['multiline', 'secret', 'ask_at_runtime'] as const) {
    if (key in raw && typeof raw[key] !== 'boolean') throw fail('inputs', `${raw.id}: ${key} must be true or false.`);
  }
  for (const key of STRING_ONLY) {
    if (key in raw && field.type !== 'string') throw fail('inputs', `${key} not allowed for ${field.type} type (${raw.id})`);
  }
  if ('format' in raw && raw.format !== 'ssh_private_key' && raw.format !== 'url') throw fail('inputs', `${raw.id}: format must be "ssh_private_key" or "url".`);
  if ('choices' in raw) {
    const choices = raw.choices;
    const ok = Array.isArray(choices) && choices.length > 0 && choices.every((c) => typeof c === 'string') && new Set(choices).size === choices.length;
    if (!ok) throw fail('inputs', `${raw.id}: choices must be a non-empty list of distinct strings.`);
  }
  if ('default' in raw) {
    if (typeof raw.default !== field.type) throw fail('inputs', `${JSON.stringify(raw.default)} is not a ${field.type}`);
    if (field.choices && !field.choices.includes(raw.default as string)) throw fail('inputs', `${raw.id}: the default must be one of the choices.`);
  }
  return field;
}

/** Checks a custom type's inputs; answers them normalized (a field without a type is a string). */
export function validateTypeInputs(value: unknown, custom = true): TypeInputs {
  if (!isObject(value)) throw fail('inputs', 'Must be an object with "fields" and "required".');
  for (const key of Object.keys(value)) {
    if (key === 'dependencies' && custom) throw fail('inputs', "'dependencies' is not supported for custom credentials.");
    if (!['fields', 'required', 'dependencies'].includes(key)) throw fail('inputs', `Unknown key "${key}": inputs take "fields" and "required".`);
  }
  if ('fields' in value && !Array.isArray(value.fields)) throw fail('inputs', '"fields" must be a list.');
  const fields = ((value.fields as unknown[] | undefined) ?? []).map((f, i) => checkField(f, i, custom));
  const ids = new Set<string>();
  for (const { id } of fields) {
    if (ids.has(id)) throw fail('inputs', `field IDs must be unique (${id})`);
    ids.add(id);
  }
  const result: TypeInputs = { ...(value as TypeInputs) };
  if ('fields' in value) result.fields = fields;
  if ('required' in value) {
    const required = value.required;
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) throw fail('inputs', '"required" must be a list of field ids.');
    const unknown = required.filter((r) => !ids.has(r));
    if (unknown.length) throw fail('inputs', `"required" names fields that are not defined: ${unknown.join(', ')}.`);
  }
  return result;
}

function checkEnvName(name: string): void {
  if (!IDENTIFIER.test(name)) throw fail('injectors', `env.${name}: not a valid environment variable name.`);
  if (name.startsWith('ANSIBLE_')) throw fail('injectors', `Environment variable ${name} may affect Ansible configuration so its use is not allowed in credentials.`);
  if (ENV_BLOCKLIST.has(name)) throw fail('injectors', `Environment variable ${name} is not allowed to be used in credentials.`);
}

/** Checks injectors against the type's inputs: shape, names, and every template (see injector-template.ts). */
export function validateInjectors(value: unknown, inputs: TypeInputs): Injectors {
  if (!isObject(value)) throw fail('injectors', 'Must be an object with "env", "extra_vars" and "file".');
  for (const [section, entries] of Object.entries(value)) {
    if (!['env', 'extra_vars', 'file'].includes(section)) throw fail('injectors', `Unknown key "${section}": injectors take "env", "extra_vars" and "file".`);
    if (!isObject(entries)) throw fail('injectors', `${section} must be an object of templates.`);
    for (const [key, template] of Object.entries(entries)) {
      if (typeof template !== 'string') throw fail('injectors', `${section}.${key} must be a string (a template).`);
      if (section === 'file' && !/^template(\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$/.test(key)) {
        throw fail('injectors', `file.${key}: file injectors are named "template" or "template.<name>".`);
      }
      if (section === 'extra_vars' && !IDENTIFIER.test(key)) throw fail('injectors', `extra_vars.${key}: not a valid variable name.`);
      if (section === 'env') {
        checkEnvName(key);
        if (!/^[\x00-\x7F]*$/.test(template)) throw fail('injectors', `env.${key}: environment variable templates must be ASCII.`);
      }
    }
  }
  const injectors = value as Injectors;
  const fileKeys = Object.keys(injectors.file ?? {});
  if (fileKeys.includes('template') && fileKeys.length > 1) throw fail('injectors', 'Must use multi-file syntax when injecting multiple files');
  const names = templateNames(inputs, injectors);
  for (const [section, entries] of Object.entries(injectors)) {
    for (const [key, template] of Object.entries(entries as Record<string, string>)) {
      try {
        compileTemplate(template, names);
      } catch (err) {
        if (err instanceof TemplateProblem) throw fail('injectors', `${section}.${key} ${err.message}`);
        throw err;
      }
    }
  }
  return injectors;
}

/** The names a type's templates may use, for rendering. */
export function templateNames(inputs: TypeInputs, injectors: Injectors): TemplateNames {
  const fileKeys = Object.keys(injectors.file ?? {});
  return {
    inputs: new Set(fieldsOf(inputs).map((f) => f.id)),
    files: fileKeys.includes('template') ? 'single' : new Set(fileKeys.map((k) => k.slice('template.'.length))),
  };
}
