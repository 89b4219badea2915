import type { FieldErrors } from '../../api/errors.ts';
import { completeField, type Field } from '../../api/fields.ts';
import type { Queryable } from '../../db/database.ts';

/**
 * One setting: a field built with src/api/fields.ts (validation, label, help text, default,
 * choices, secret flag) tagged with the TypeScript type of its value.
 */
export interface SettingField<T = unknown> extends Field {
  /** Carries the value type for `Settings.get`; never set at run time. */
  readonly __value?: T;
  /** Extra OPTIONS metadata (the item type of a list, a unit). */
  readonly meta?: Record<string, unknown>;
  /**
   * A read-only setting whose value the service knows rather than stores (the installation's id,
   * say), or makes from other settings (a callback URL from the base URL).
   */
  readonly compute?: (facts: SettingFacts, value: SettingLookup) => unknown;
}

/** What computed settings are made from: facts of the installation, read once when settings load. */
export interface SettingFacts {
  installUuid: string;
  /** The resources of the service's composition (the named URL settings describe theirs). */
  resources: readonly NamedUrlResource[];
}

/** What the named URL settings read of a resource (src/api/resource.ts declares it in full). */
export interface NamedUrlResource {
  name: string;
  plural: string;
  topLevel: boolean;
  namedUrl: string[] | null;
  fields: Record<string, { ref?: string }>;
}

/** Tags a field with the type of the value it holds. */
export function setting<T>(field: Field, meta?: Record<string, unknown>): SettingField<T> {
  return meta ? { ...field, meta } : field;
}

/** A read-only setting answered by `compute` (never stored, never in a settings file). */
export function computedSetting<T>(field: Field, compute: (facts: SettingFacts, value: SettingLookup) => T, meta?: Record<string, unknown>): SettingField<T> {
  return { ...field, readOnly: true, compute, ...(meta && { meta }) };
}

/** Reads the value a setting will have once a write is applied. */
export type SettingLookup = (name: string) => unknown;

export interface CategoryDeclaration<S extends Record<string, SettingField>> {
  /** URL segment: /api/v2/settings/<slug>/. */
  slug: string;
  name: string;
  description?: string;
  settings: S;
  /**
   * Other names of settings of the category: AWX's, for its clients (`{AWX_TASK_ENV: 'SVC_TASK_ENV'}`),
   * or another the specification gives (`{NAME: {of: 'SETTING', source: "The specification's other name"}}`,
   * `source` beginning the alias's note in its help text).
   * An alias reads and writes the one stored value of its setting, and is listed after it.
   */
  aliases?: Record<string, string | { of: string; source: string }>;
  /**
   * Rules spanning several settings of the category, checked against the values the settings
   * would have after a write (and against the settings file at start). Answers problems by name.
   */
  validate?(value: SettingLookup, db: Queryable): Promise<FieldErrors | null> | FieldErrors | null;
}

export interface Category<S extends Record<string, SettingField> = Record<string, SettingField>> extends CategoryDeclaration<S> {
  description: string;
}

/** `{NAME: type}` of a category's settings. */
export type ValuesOf<C> = C extends Category<infer S> ? { [K in keyof S]: S[K] extends SettingField<infer T> ? T : unknown } : never;

/** Fills in labels from names and normalizes a category declaration (registration is in registry.ts). */
export function category<S extends Record<string, SettingField>>(decl: CategoryDeclaration<S>): Category<S> {
  const settings = Object.fromEntries(Object.entries(decl.settings).map(([name, f]) => [name, completeField(name, f)])) as S;
  return { ...decl, description: decl.description ?? '', settings };
}

/** The default of a declared setting; a field without one defaults to null. */
export const defaultOf = (field: Field): unknown => (field.default === undefined ? null : field.default);

/** Values handed out by `Settings.get` are shared: freezing them keeps callers from changing them. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
