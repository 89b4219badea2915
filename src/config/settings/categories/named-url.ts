import { json } from '../../../api/fields.ts';
import { category, computedSetting, type NamedUrlResource as Resource } from '../types.ts';

interface GraphNode {
  fields: string[];
  adj_list: [string, string][];
}

/** A resource's own named-URL fields and the reference that ends it, if any (see ResourceDeclaration.namedUrl). */
function node(resources: readonly Resource[], resource: Resource): { fields: string[]; ref: [string, Resource] | null } {
  const spec = resource.namedUrl ?? [];
  const last = resource.fields[spec[spec.length - 1]];
  if (!last?.ref) return { fields: spec, ref: null };
  const target = resources.find((r) => r.name === last.ref);
  return { fields: spec.slice(0, -1), ref: target ? [spec[spec.length - 1], target] : null };
}

/** AWX's format: the resource's fields, then each referenced resource's, named after the reference (<name>++<organization.name>). */
function format(resources: readonly Resource[], resource: Resource, prefix = ''): string {
  const { fields, ref } = node(resources, resource);
  const own = fields.map((f) => `<${prefix}${f}>`);
  return [...own, ...(ref ? [format(resources, ref[1], `${ref[0]}.`)] : [])].join('++');
}

const named = (resources: readonly Resource[]) => resources.filter((r) => r.topLevel && r.namedUrl);

function graphNodes(resources: readonly Resource[]): Record<string, GraphNode> {
  return Object.fromEntries(
    named(resources).map((r) => {
      const { fields, ref } = node(resources, r);
      return [r.plural, { fields, adj_list: ref ? [[ref[0], ref[1].plural]] : [] }];
    }),
  );
}

/** AWX's read-only description of named URLs, made from the resources' namedUrl declarations. */
export const namedUrl = category({
  slug: 'named-url',
  name: 'Named URL',
  description: 'The named URLs of the resources (read-only).',
  settings: {
    NAMED_URL_FORMATS: computedSetting<Record<string, string>>(
      json({
        label: 'Formats of all available named urls',
        helpText: 'Read-only list of key-value pairs that shows the standard format of all available named URLs.',
      }),
      ({ resources }) => Object.fromEntries(named(resources).map((r) => [r.plural, format(resources, r)])),
    ),
    NAMED_URL_GRAPH_NODES: computedSetting<Record<string, GraphNode>>(
      json({
        label: 'List of all named url graph nodes.',
        helpText: 'Read-only list of key-value pairs that exposes named URL graph topology. Use this list to programmatically generate named URLs for resources',
      }),
      ({ resources }) => graphNodes(resources),
    ),
  },
});
