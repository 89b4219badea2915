import { ApiError } from '../api/errors.ts';
import { allowedPermissions, ALL_PERMISSIONS, MANAGED_DEFINITIONS, PERMISSION_MODELS, contentTypeOf, type DefinitionSpec } from './role-definitions.ts';

const invalid = (field: string, message: string) => new ApiError(400, { [field]: [message] });
const missing = (value: unknown) => `Invalid pk "${String(value)}" - object does not exist.`;

/** DAB's ContentTypeField: `awx.inventory` or `inventory`; null would be a system-wide role. */
export function parseContentType(value: unknown) {
  if (value === null || value === undefined || value === '') throw invalid('content_type', 'System-wide roles are not enabled');
  if (typeof value !== 'string') throw invalid('content_type', `Incorrect type. Expected pk value, received ${typeof value}.`);
  const model = value.split('.').pop();
  const found = PERMISSION_MODELS.find((m) => m.model === model);
  if (!found) throw invalid('content_type', missing(value));
  return found;
}

/** DAB's PermissionField: `awx.view_inventory` or `view_inventory`, answered qualified. */
function parsePermissions(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid('permissions', `Expected a list of items but got type "${typeof value}".`);
  return [...new Set(value.map((item) => {
    const codename = typeof item === 'string' ? item.split('.').pop() : undefined;
    const found = ALL_PERMISSIONS.find((p) => p.split('.').pop() === codename);
    if (!found) throw invalid('permissions', missing(item));
    return found;
  }))];
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((p) => b.includes(p));

/**
 * Checks a definition as DAB's validate_permissions_for_model does (permissions valid for the
 * content type, view given with any other action on a model), then finds the Drover role granting
 * exactly those permissions: Drover's roles are fixed, so another set is refused.
 */
export function resolveDefinition(contentTypeValue: unknown, permissionsValue: unknown): { spec: DefinitionSpec; contentType: string; permissions: string[] } {
  const model = parseContentType(contentTypeValue);
  const permissions = parsePermissions(permissionsValue);
  const allowed = allowedPermissions(model);
  const notAllowed = permissions.filter((p) => !allowed.includes(p));
  if (notAllowed.length) {
    throw invalid('permissions', `Permissions ${notAllowed.map((p) => `"${p.split('.').pop()}"`).join(', ')} are not valid for ${model.model} roles`);
  }
  const byModel = new Map<string, string[]>();
  for (const p of permissions) {
    const [action, ...rest] = p.split('.').pop()!.split('_');
    const key = rest.join('_');
    if (!byModel.has(key)) byModel.set(key, []);
    if (action !== 'add') byModel.get(key)!.push(action);
  }
  for (const [key, actions] of byModel) {
    if (actions.length && !actions.includes('view')) {
      throw invalid('permissions', `Permissions for model ${key} needs to include view, got: ${actions.map((a) => `${a}_${key}`).join(', ')}`);
    }
  }
  const candidates = MANAGED_DEFINITIONS.filter((d) => d.resource === model.resource);
  const spec = candidates.find((d) => sameSet(d.permissions, permissions));
  if (!spec) {
    const known = candidates.map((d) => `${d.name} (${d.permissions.join(', ')})`).join('; ');
    throw invalid('permissions', `Drover grants fixed roles: the permissions of a ${model.model} role definition must be exactly those of one of its roles: ${known}.`);
  }
  return { spec, contentType: contentTypeOf(model), permissions };
}
