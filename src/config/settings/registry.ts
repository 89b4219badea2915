import { ENCRYPTED, FieldProblem, type Field } from '../../api/fields.ts';
import { BUILTIN_CATEGORIES } from './categories/index.ts';
import { deepFreeze, type Category, type SettingField } from './types.ts';

export interface SettingDefinition {
  name: string;
  field: SettingField;
  category: Category;
  /** The name the value is stored under: the setting's own, or for an alias the setting it names. */
  canonical: string;
}

/** The pseudo-category answering every setting at /api/v2/settings/all/. */
export const ALL = { slug: 'all', name: 'All' } as const;
/** The pseudo-category answering the settings whose value is not their default (writes act as on all). */
export const CHANGED = { slug: 'changed', name: 'Changed' } as const;
const PSEUDO: Record<string, { slug: string; name: string; description: string }> = {
  [ALL.slug]: { ...ALL, description: 'Every setting of every category.' },
  [CHANGED.slug]: { ...CHANGED, description: 'The settings whose value differs from their default.' },
};

const categories = new Map<string, Category>();
const definitions = new Map<string, SettingDefinition>();

/**
 * Adds a category of settings. Modules owning settings (an LDAP or SAML integration, say)
 * call this when they are imported, before the settings are loaded.
 */
export function registerCategory(category: Category): Category {
  if (category.slug in PSEUDO || categories.has(category.slug)) throw new Error(`setting category "${category.slug}" is already defined`);
  const aliases = Object.entries(category.aliases ?? {});
  for (const name of [...Object.keys(category.settings), ...aliases.map(([alias]) => alias)]) {
    const other = definitions.get(name);
    if (other) throw new Error(`setting ${name} is defined in both "${other.category.slug}" and "${category.slug}"`);
  }
  for (const [alias, canonical] of aliases) {
    if (!(canonical in category.settings) || alias in category.settings) throw new Error(`alias ${alias} of "${category.slug}" must name one of its settings`);
  }
  categories.set(category.slug, category);
  for (const [name, field] of Object.entries(category.settings)) {
    deepFreeze(field.default);
    definitions.set(name, { name, field, category, canonical: name });
    for (const [alias] of aliases.filter(([, c]) => c === name)) {
      const helpText = `Another name of ${name} (AWX's), for AWX's clients: both read and change the same value.${field.helpText ? ' ' + field.helpText : ''}`;
      definitions.set(alias, { name: alias, field: { ...field, helpText }, category, canonical: name });
    }
  }
  return category;
}

for (const category of BUILTIN_CATEGORIES) registerCategory(category);

export const allCategories = (): Category[] => [...categories.values()];

export const findSetting = (name: string): SettingDefinition | undefined => definitions.get(name);

export const allSettings = (): SettingDefinition[] => [...definitions.values()];

/** Whether the definition is an alias of another setting. */
export const isAlias = (definition: SettingDefinition): boolean => definition.canonical !== definition.name;

/** The settings a slug covers, each followed by its aliases (every setting for "all" and "changed"); undefined for an unknown slug. */
export function settingsOf(slug: string): SettingDefinition[] | undefined {
  if (slug in PSEUDO) return allSettings();
  const category = categories.get(slug);
  return category && allSettings().filter((d) => d.category === category);
}

export const categoryName = (slug: string): string | undefined => PSEUDO[slug]?.name ?? categories.get(slug)?.name;

export const categoryDescription = (slug: string): string => PSEUDO[slug]?.description ?? categories.get(slug)?.description ?? '';

/** Validates one incoming value; throws FieldProblem. */
export function parseSetting(field: Field, value: unknown): unknown {
  if (field.secret && value === ENCRYPTED) throw new FieldProblem(`"${ENCRYPTED}" is only accepted to keep the stored value.`);
  return field.parse(value);
}
