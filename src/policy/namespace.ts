/**
 * Where an organization's policies live in the engine. Every policy shares one engine and one data
 * tree, where modules of the same package merge: an organization's modules may only define packages
 * under drover.org_<organization id>, and its policies only evaluate paths there, so no organization
 * adds rules to another's packages or reads their verdicts. Global policies (superusers only) may
 * use any package.
 */

/** The namespace's path segments, ['drover', 'org_<id>']. */
export const namespaceSegments = (organizationId: number) => ['drover', `org_${organizationId}`];

/** The namespace as a Rego package name, drover.org_<id>. */
export const namespaceOf = (organizationId: number) => namespaceSegments(organizationId).join('.');

/** Whether the written segments of a path begin with the whole namespace. */
export function withinNamespace(segments: readonly (string | null)[], organizationId: number): boolean {
  const namespace = namespaceSegments(organizationId);
  return namespace.every((segment, i) => segments[i] === segment);
}

/** The segments of a package path as the field takes it: dotted or slashed. */
export const packagePathSegments = (packagePath: string) => packagePath.split(/[./]/);
