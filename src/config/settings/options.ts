import type { Settings } from './store.ts';
import { isAlias, type SettingDefinition } from './registry.ts';
import { defaultOf } from './types.ts';

type Meta = Record<string, unknown>;

/** One setting's OPTIONS metadata, in the shape src/api/options.ts gives resource fields. */
function settingMeta(settings: Settings, definition: SettingDefinition): Meta {
  const { field, category } = definition;
  const meta: Meta = {
    type: field.optionsType,
    label: field.label,
    help_text: field.helpText,
    required: !field.nullable && field.optionsType !== 'string',
  };
  if (field.choices) meta.choices = field.choices.map(([v, l]) => [v, l]);
  meta.default = field.serialize(defaultOf(field));
  if (field.nullable) meta.allow_null = true;
  if (field.readOnly) meta.read_only = true;
  Object.assign(meta, definition.field.meta);
  // Another name of a setting (AWX's, or one the specification gives too) says which one it is, so a form shows the pair once (under the other name).
  if (isAlias(definition)) meta.alias_of = definition.canonical;
  meta.category = category.name;
  meta.category_slug = category.slug;
  meta.defined_in_file = settings.definedInFile(definition.name);
  return meta;
}

/** OPTIONS on /api/v2/settings/<slug>/: GET for readers, PUT too for those who may change settings. */
export function categoryOptions(settings: Settings, slug: string, scope: readonly SettingDefinition[], canChange: boolean): Meta {
  const fields = Object.fromEntries(scope.map((d) => [d.name, settingMeta(settings, d)]));
  const actions: Meta = { GET: fields };
  if (canChange) actions.PUT = Object.fromEntries(scope.filter((d) => !d.field.readOnly).map((d) => [d.name, settingMeta(settings, d)]));
  return {
    name: `${settings.registry.categoryName(slug)} Settings`,
    description: settings.registry.categoryDescription(slug),
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
    actions,
  };
}

export function listOptions(): Meta {
  return {
    name: 'Setting Categories',
    description: 'The categories of settings; each is read and changed at its url.',
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
    actions: {
      GET: {
        url: { type: 'string', label: 'Url', help_text: 'URL of the category.' },
        slug: { type: 'string', label: 'Slug', help_text: 'Name of the category in URLs.' },
        name: { type: 'string', label: 'Name', help_text: 'Name of the category.' },
      },
    },
  };
}
