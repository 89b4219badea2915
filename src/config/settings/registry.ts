import { ENCRYPTED, FieldProblem, type Field } from '../../api/fields.ts';
import { BUILTIN_CATEGORIES } from './categories/index.ts';
import { deepFreeze, type Category, type SettingField } from './types.ts';

export interface SettingDefinition {
  name: string;
  field: SettingField;
  category: Category;
}

/** The pseudo-category answering every setting at /api/v2/settings/all/. */
export const ALL = { slug: 'all', name: 'All' } as const;

const categories = new Map<string, Category>();
const definitions = new Map<string, SettingDefinition>();

/**
 * Adds a category of settings. Modules owning settings (an LDAP or SAML integration, say)
 * call this when they are imported, before the settings are loaded.
 */
export function registerCategory(category: Category): Category {
  if (category.slug === ALL.slug || categories.has(category.slug)) throw new Error(`setting category "${category.slug}" is already defined`);
  for (const name of Object.keys(category.settings)) {
    const other = definitions.get(name);
    if (other) throw new Error(`setting ${name} is defined in both "${other.category.slug}" and "${category.slug}"`);
  }
  categories.set(category.slug, category);
  for (const [name, field] of Object.entries(category.settings)) {
    deepFreeze(field.default);
    definitions.set(name, { name, field, category });
  }
  return category;
}

for (const category of BUILTIN_CATEGORIES) registerCategory(category);

export const allCategories = (): Category[] => [...categories.values()];

export const findSetting = (name: string): SettingDefinition | undefined => definitions.get(name);

export const allSettings = (): SettingDefinition[] => [...definitions.values()];

/** The settings a slug covers (every setting for "all"); undefined for an unknown slug. */
export function settingsOf(slug: string): SettingDefinition[] | undefined {
  if (slug === ALL.slug) return allSettings();
  const category = categories.get(slug);
  return category && Object.keys(category.settings).map((name) => definitions.get(name)!);
}

export const categoryName = (slug: string): string | undefined => (slug === ALL.slug ? ALL.name : categories.get(slug)?.name);

export const categoryDescription = (slug: string): string =>
  slug === ALL.slug ? 'Every setting of every category.' : (categories.get(slug)?.description ?? '');

/** Validates one incoming value; throws FieldProblem. */
export function parseSetting(field: Field, value: unknown): unknown {
  if (field.secret && value === ENCRYPTED) throw new FieldProblem(`"${ENCRYPTED}" is only accepted to keep the stored value.`);
  return field.parse(value);
}
