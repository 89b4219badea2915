/**
 * The module rules (src/policy/module-rules.ts) applied to a policy as it will be stored, with the
 * rights of whoever stores it: an organization admin cannot save a policy whose text holds a
 * superuser's built-in, even one a superuser wrote, apart from switching it on or off.
 */
import { isSuperuser } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { policyProblems } from '../../policy/module-rules.ts';

const columnOf = (field: string) => (field === 'organization' ? 'organization_id' : field);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A change that only switches the policy on or off (a PUT repeating the other values included). */
const onlySwitches = (values: Values, existing: Row) =>
  Object.entries(values).every(([field, value]) => field === 'enabled' || same(value, existing[columnOf(field)]));

/** Refuses a policy (a row as stored) its author may not store, with the problems by field. */
export function assertPolicyAllowed(policy: Row, bySuperuser: boolean): void {
  const errors = policyProblems({
    organizationId: typeof policy.organization_id === 'number' ? policy.organization_id : null,
    regoModule: String(policy.rego_module ?? ''),
    packagePath: String(policy.package_path ?? ''),
  }, bySuperuser);
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

export function checkPolicy(_tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): void {
  const switching = !!existing && onlySwitches(values, existing);
  // Switching off is never refused; switching on checks the namespace only, as enable/ does.
  if (switching && values.enabled !== true) return;
  const stored: Row = { ...existing };
  for (const [field, value] of Object.entries(values)) stored[columnOf(field)] = value;
  stored.organization_id ??= null;
  assertPolicyAllowed(stored, switching || isSuperuser(ctx));
}
