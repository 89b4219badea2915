import { ENCRYPTED, FieldProblem, type Field } from '../../api/fields.ts';
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

/**
 * The setting categories of one service and their settings by name (aliases included). Built once
 * from the composition root's SETTING_CATEGORIES before the settings load; a name or alias defined
 * twice throws.
 */
export class SettingRegistry {
  private readonly bySlug = new Map<string, Category>();
  private readonly definitions = new Map<string, SettingDefinition>();

  constructor(categories: readonly Category[]) {
    for (const category of categories) this.add(category);
  }

  private add(category: Category): void {
    if (category.slug in PSEUDO || this.bySlug.has(category.slug)) throw new Error(`setting category "${category.slug}" is already defined`);
    const aliases = Object.entries(category.aliases ?? {}).map(([alias, of]): [string, string, string] => (typeof of === 'string' ? [alias, of, "AWX's name"] : [alias, of.of, of.source]));
    for (const name of [...Object.keys(category.settings), ...aliases.map(([alias]) => alias)]) {
      const other = this.definitions.get(name);
      if (other) throw new Error(`setting ${name} is defined in both "${other.category.slug}" and "${category.slug}"`);
    }
    for (const [alias, canonical] of aliases) {
      if (!(canonical in category.settings) || alias in category.settings) throw new Error(`alias ${alias} of "${category.slug}" must name one of its settings`);
    }
    this.bySlug.set(category.slug, category);
    for (const [name, field] of Object.entries(category.settings)) {
      deepFreeze(field.default);
      this.definitions.set(name, { name, field, category, canonical: name });
      for (const [alias, , source] of aliases.filter(([, c]) => c === name)) {
        const helpText = `${field.helpText ? field.helpText + ' ' : ''}${source} of ${name}: both names read and change the same value.`;
        this.definitions.set(alias, { name: alias, field: { ...field, helpText }, category, canonical: name });
      }
    }
  }

  categories(): Category[] {
    return [...this.bySlug.values()];
  }

  find(name: string): SettingDefinition | undefined {
    return this.definitions.get(name);
  }

  all(): SettingDefinition[] {
    return [...this.definitions.values()];
  }

  /** The settings a slug covers, each followed by its aliases (every setting for "all" and "changed"); undefined for an unknown slug. */
  settingsOf(slug: string): SettingDefinition[] | undefined {
    if (slug in PSEUDO) return this.all();
    const category = this.bySlug.get(slug);
    return category && this.all().filter((d) => d.category === category);
  }

  categoryName(slug: string): string | undefined {
    return PSEUDO[slug]?.name ?? this.bySlug.get(slug)?.name;
  }

  categoryDescription(slug: string): string {
    return PSEUDO[slug]?.description ?? this.bySlug.get(slug)?.description ?? '';
  }
}

/** Whether the definition is an alias of another setting. */
export const isAlias = (definition: SettingDefinition): boolean => definition.canonical !== definition.name;

/** Validates one incoming value; throws FieldProblem. */
export function parseSetting(field: Field, value: unknown): unknown {
  if (field.secret && value === ENCRYPTED) throw new FieldProblem(`"${ENCRYPTED}" is only accepted to keep the stored value.`);
  return field.parse(value);
}
