import type { RunKinds } from './run-kind.ts';

let inUse: RunKinds | undefined;

/**
 * The run kinds of the composed service, for what is declared before there is one: field choices
 * taken from the kinds (a policy's applies_to, an event rule's action types) and serializers that
 * are given no services. composeServices sets them, as it registers the resources.
 */
export function useRunKinds(kinds: RunKinds): void {
  inUse = kinds;
}

export function runKindsInUse(): RunKinds {
  if (!inUse) throw new Error('the run kinds are read before the service is composed');
  return inUse;
}

/** What launches are, in the words of a policy's applies_to: the resource types of the run kinds' policy facets. */
export const policyResourceTypes = (): readonly string[] => runKindsInUse().policyResourceTypes();

/** AWX's unified_job_type of a template whose kind in unified_job_templates is `templateKind`: the name of its runs' kind. */
export function unifiedJobTypeOf(templateKind: string): string | undefined {
  const kinds = runKindsInUse();
  return kinds.forTemplateTable(kinds.resources.get(templateKind).table)?.name;
}
