/**
 * A notification template's notification_configuration against its kind (AWX's serializer rules
 * and messages): required fields, their types, lists not empty, the HTTP method. Secret fields are
 * stored encrypted as credential inputs are; "$encrypted$" on update keeps the stored value.
 */
import { ValidationError } from '../../api/errors.ts';
import { ENCRYPTED } from '../../api/fields.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { NOTIFICATION_TYPES, type ConfigField } from './notification-types.ts';

export type Configuration = Record<string, unknown>;

/** What a secret field is encrypted for. */
export const configPurpose = (field: string) => `notification_template.${field}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const URL_FIELDS = new Set(['url', 'mattermost_url', 'rocketchat_url', 'grafana_url', 'events_url', 'api_url', 'mattermost_icon_url', 'rocketchat_icon_url']);

function hasType(field: ConfigField, value: unknown): boolean {
  switch (field.type) {
    case 'string':
    case 'password':
      return typeof value === 'string';
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
  }
}

function valueProblem(name: string, field: ConfigField, value: unknown): string | null {
  if (field.type === 'list') {
    if ((value as unknown[]).length < 1) return `No values specified for field '${name}'`;
    if ((value as unknown[]).some((item) => typeof item !== 'string' || item.trim() === '' || /[\r\n\0]/.test(item))) {
      return `Configuration field '${name}' must be a list of non-empty strings without line breaks.`;
    }
  }
  if (field.type === 'object' && Object.values(value as object).some((v) => typeof v !== 'string')) return `Configuration field '${name}' must map names to strings.`;
  if (name === 'http_method' && !['put', 'post'].includes((value as string).toLowerCase())) return "HTTP method must be either 'POST' or 'PUT'.";
  if (URL_FIELDS.has(name) && value !== '' && !/^https?:\/\/[^\s/?#]+/i.test(value as string)) return `Configuration field '${name}' must be an http or https URL.`;
  if (name === 'port' && ((value as number) < 1 || (value as number) > 65535)) return `Configuration field '${name}' must be a port number (1-65535).`;
  if (/[\r\n\0]/.test(typeof value === 'string' ? value : '') && field.type !== 'password') return `Configuration field '${name}' must not contain line breaks.`;
  return null;
}

/**
 * Validates `incoming` (the whole configuration, as AWX replaces it) for `type`; `stored` is the
 * current configuration when the kind is unchanged. Answers what to store, secrets encrypted.
 */
export function prepareConfiguration(type: string, incoming: unknown, stored: Configuration | null): Configuration {
  const kind = NOTIFICATION_TYPES[type];
  if (!isObject(incoming)) throw ValidationError.field('notification_configuration', 'Expected a JSON object.');
  const errors: string[] = [];
  const missing: string[] = [];
  const out: Configuration = {};
  for (const name of Object.keys(incoming)) if (!kind.fields[name]) errors.push(`Configuration field '${name}' is not a field of ${kind.label} notifications.`);
  for (const [name, field] of Object.entries(kind.fields)) {
    const value = incoming[name];
    if (value === undefined) {
      if ('default' in field) out[name] = field.default;
      else if (!field.optional) missing.push(name);
      continue;
    }
    if (field.optional && value === null) continue;
    if (!hasType(field, value)) {
      errors.push(`Configuration field '${name}' incorrect type, expected ${field.type}.`);
      continue;
    }
    if (field.type === 'password' && value === ENCRYPTED) {
      if (stored && typeof stored[name] === 'string') out[name] = stored[name];
      else errors.push(`${ENCRYPTED} is a reserved keyword, and cannot be used for ${name}.`);
      continue;
    }
    const problem = valueProblem(name, field, value);
    if (problem) errors.push(problem);
    else if (field.type === 'password') out[name] = value === '' ? '' : encryptSecret(configPurpose(name), value as string);
    else out[name] = name === 'http_method' ? (value as string).toUpperCase() : value;
  }
  if (missing.length) errors.unshift(`Missing required fields for Notification Configuration: ${missing.join(', ')}.`);
  if (errors.length) throw new ValidationError({ notification_configuration: errors });
  return out;
}

/** The configuration as the API shows it: every secret reads "$encrypted$". */
export function displayConfiguration(stored: unknown): unknown {
  if (!isObject(stored)) return stored;
  return Object.fromEntries(Object.entries(stored).map(([name, value]) => [name, isEncryptedSecret(value) ? ENCRYPTED : value]));
}

/** The configuration in clear, for sending (and for a copy). */
export function clearConfiguration(stored: Configuration): Configuration {
  return Object.fromEntries(Object.entries(stored).map(([name, value]) => [name, isEncryptedSecret(value) ? decryptSecret(configPurpose(name), value) : value]));
}
