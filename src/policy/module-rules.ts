/**
 * What a policy may hold, checked whenever it is saved: an organization's policy defines packages
 * and reads documents only under its namespace and evaluates a path there (see namespace.ts); the
 * built-ins that reach out of the engine are a superuser's to write. Global policies are written by
 * superusers only and are not confined.
 */
import type { FieldErrors } from '../api/errors.ts';
import { reviewModule, writtenPath, RESTRICTED_BUILTINS } from './module-review.ts';
import { namespaceOf, packagePathSegments, withinNamespace } from './namespace.ts';

export interface PolicyText {
  organizationId: number | null;
  regoModule: string;
  packagePath: string;
}

const WHY_RESTRICTED: Record<(typeof RESTRICTED_BUILTINS)[number], string> = {
  'http.send': 'it sends requests from the policy engine',
  'net.lookup_ip_addr': 'it resolves names from the policy engine',
  'opa.runtime': "it reads the policy engine's environment and configuration",
};

const whyRestricted = (builtin: string) => WHY_RESTRICTED[builtin as keyof typeof WHY_RESTRICTED] ?? 'it could lead to http.send, net.lookup_ip_addr or opa.runtime';

/** Why the module may not be saved by this author, one message each; empty when it may. */
function moduleProblems(policy: PolicyText, bySuperuser: boolean): string[] {
  const review = reviewModule(policy.regoModule);
  const problems: string[] = [];
  if (!bySuperuser) {
    for (const builtin of review.restrictedBuiltins) problems.push(`${builtin} may only be used in a policy a superuser writes: ${whyRestricted(builtin)}.`);
  }
  const organization = policy.organizationId;
  if (organization === null) return problems;
  const namespace = namespaceOf(organization);
  if (!review.packages.length) problems.push(`Declare the module's package under ${namespace}, such as: package ${namespace}.launch`);
  for (const segments of review.packages) {
    if (!segments) problems.push(`A package name could not be read: write it as names and quoted strings, such as: package ${namespace}.launch`);
    else if (!withinNamespace(segments, organization)) {
      problems.push(`Package ${writtenPath(segments)} is outside this organization's namespace: its policies define packages under ${namespace}.`);
    }
  }
  for (const segments of review.dataReferences) {
    if (!withinNamespace(segments.slice(1), organization)) {
      problems.push(`The module reads ${writtenPath(segments)}: an organization's policies may only read documents under data.${namespace}.`);
    }
  }
  return [...new Set(problems)];
}

export function policyProblems(policy: PolicyText, bySuperuser: boolean): FieldErrors {
  const errors: FieldErrors = {};
  const module = moduleProblems(policy, bySuperuser);
  if (module.length) errors.rego_module = module;
  if (policy.organizationId !== null && !withinNamespace(packagePathSegments(policy.packagePath), policy.organizationId)) {
    const namespace = namespaceOf(policy.organizationId);
    errors.package_path = [`${policy.packagePath} is outside this organization's namespace: evaluate a package under ${namespace}, such as ${namespace}.launch.`];
  }
  return errors;
}
