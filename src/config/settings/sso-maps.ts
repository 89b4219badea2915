/**
 * The organization and team maps of external sign-in (AWX's *_ORGANIZATION_MAP and *_TEAM_MAP
 * settings), validated on write so a map that is stored is a map the sign-in code can apply.
 */
import { FieldProblem, json, type Field, type FieldOptions } from '../../api/fields.ts';

/** true (everyone), false / null (no one), or a string or list of strings to match. */
export type MapRule = boolean | null | string | string[];

export interface OrganizationMapEntry {
  users?: MapRule;
  admins?: MapRule;
  auditors?: MapRule;
  /** Default for the three below: remove the user when the rule no longer matches (true unless said). */
  remove?: boolean;
  remove_users?: boolean;
  remove_admins?: boolean;
  remove_auditors?: boolean;
}

export interface TeamMapEntry {
  organization: string;
  users?: MapRule;
  remove?: boolean;
}

export type OrganizationMap = Record<string, OrganizationMapEntry>;
export type TeamMap = Record<string, TeamMapEntry>;

const MAX_NAME = 512;
const MAX_ITEMS = 1000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A "/pattern/flags" string of a map rule, as AWX accepts them for regular expressions. */
export const REGEX_RULE = /^\/(.*)\/([gimsuy]*)$/s;

function checkRule(where: string, value: unknown, regexAllowed: boolean): void {
  if (value === null || typeof value === 'boolean') return;
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items)) throw new FieldProblem(`${where}: expected true, false, null, a string or a list of strings.`);
  if (items.length > MAX_ITEMS) throw new FieldProblem(`${where}: at most ${MAX_ITEMS} items.`);
  for (const item of items) {
    if (typeof item !== 'string' || item === '') throw new FieldProblem(`${where}: every item must be a non-empty string.`);
    if (item.length > MAX_NAME * 4) throw new FieldProblem(`${where}: an item is longer than ${MAX_NAME * 4} characters.`);
    const regex = regexAllowed ? REGEX_RULE.exec(item) : null;
    if (regex) {
      try {
        new RegExp(regex[1], regex[2].replace('g', ''));
      } catch {
        throw new FieldProblem(`${where}: "${item}" is not a valid regular expression.`);
      }
    }
  }
}

function checkBoolean(where: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') throw new FieldProblem(`${where}: expected true or false.`);
}

function checkName(kind: string, name: string): void {
  if (name.trim() === '' || name.length > MAX_NAME) throw new FieldProblem(`${kind} name "${name.slice(0, 40)}" must be 1 to ${MAX_NAME} characters.`);
}

function mapField(opts: FieldOptions, check: (map: Record<string, unknown>) => void): Field {
  const field = json({ default: {}, ...opts });
  return {
    ...field,
    parse: (value) => {
      if (value === null) return {};
      if (!isObject(value)) throw new FieldProblem('Expected a dictionary of items.');
      if (Object.keys(value).length > MAX_ITEMS) throw new FieldProblem(`At most ${MAX_ITEMS} entries.`);
      check(value);
      return value;
    },
  };
}

const ORGANIZATION_KEYS = ['users', 'admins', 'auditors', 'remove', 'remove_users', 'remove_admins', 'remove_auditors'];

/**
 * {organization: {users, admins, auditors, remove, remove_users, remove_admins, remove_auditors}}.
 * `regexAllowed`: rules may be "/regex/flags" (social and SAML maps match usernames and emails);
 * LDAP's maps name group DNs.
 */
export function organizationMapField(opts: FieldOptions & { regexAllowed: boolean }): Field {
  const { regexAllowed, ...rest } = opts;
  return mapField(rest, (map) => {
    for (const [org, entry] of Object.entries(map)) {
      checkName('Organization', org);
      if (!isObject(entry)) throw new FieldProblem(`${org}: expected a dictionary.`);
      const unknown = Object.keys(entry).filter((k) => !ORGANIZATION_KEYS.includes(k));
      if (unknown.length) throw new FieldProblem(`${org}: invalid key(s) ${unknown.join(', ')}. Allowed: ${ORGANIZATION_KEYS.join(', ')}.`);
      for (const key of ['users', 'admins', 'auditors']) if (key in entry) checkRule(`${org}.${key}`, entry[key], regexAllowed);
      for (const key of ['remove', 'remove_users', 'remove_admins', 'remove_auditors']) checkBoolean(`${org}.${key}`, entry[key]);
    }
  });
}

const TEAM_KEYS = ['organization', 'users', 'remove'];

/** {team: {organization, users, remove}}. */
export function teamMapField(opts: FieldOptions & { regexAllowed: boolean }): Field {
  const { regexAllowed, ...rest } = opts;
  return mapField(rest, (map) => {
    for (const [team, entry] of Object.entries(map)) {
      checkName('Team', team);
      if (!isObject(entry)) throw new FieldProblem(`${team}: expected a dictionary.`);
      const unknown = Object.keys(entry).filter((k) => !TEAM_KEYS.includes(k));
      if (unknown.length) throw new FieldProblem(`${team}: invalid key(s) ${unknown.join(', ')}. Allowed: ${TEAM_KEYS.join(', ')}.`);
      if (typeof entry.organization !== 'string' || entry.organization.trim() === '') throw new FieldProblem(`${team}: "organization" is required.`);
      checkName('Organization', entry.organization);
      if ('users' in entry) checkRule(`${team}.users`, entry.users, regexAllowed);
      checkBoolean(`${team}.remove`, entry.remove);
    }
  });
}
