import path from 'node:path';
import { hasObjectRole, isSuperuser } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ApiError, forbidden, ValidationError, type FieldErrors } from '../../api/errors.ts';
import { constructedVarsProblem } from './constructed-vars.ts';
import { CONSTRUCTED_SOURCE_FIELDS } from '../inventories/constructed-source.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { CredentialTypeRow, InventoryRow, InventorySourceRow, ProjectRow } from '../../db/tables.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { branchProblem } from '../../projects/git-values.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { CLOUD_KINDS } from './source-kinds.ts';
import { hostFilterMatcher } from '../../inventory-import/host-filter-regex.ts';

/** Why a source path cannot be used, or null: it must stay inside the project's directory. */
export function sourcePathProblem(sourcePath: string): string | null {
  if (!sourcePath) return null;
  const normal = path.posix.normalize(sourcePath);
  if (path.posix.isAbsolute(sourcePath) || normal === '..' || normal.startsWith('../') || sourcePath.includes('\0')) {
    return 'Invalid path choice. The path must stay within the project directory.';
  }
  return null;
}

/** Why a file source's variables cannot be used, or null. */
function fileSourceProblem(vars: Record<string, unknown>): string | null {
  const hasScript = 'script' in vars;
  const hasInventory = 'inventory' in vars;
  if (hasScript === hasInventory) return 'A file source needs exactly one of "inventory" (inventory text or mapping) and "script" (an inventory script) in source_vars.';
  if (hasScript && (typeof vars.script !== 'string' || !vars.script.startsWith('#!'))) return 'The script must be text starting with an interpreter line ("#!").';
  if (hasInventory && (vars.inventory === null || (typeof vars.inventory !== 'string' && (typeof vars.inventory !== 'object' || Array.isArray(vars.inventory))))) {
    return 'The inventory must be inventory text (INI or YAML) or a mapping.';
  }
  return null;
}

/** As AWX's cloud_credential_validation: the credential a source of each kind needs, or may have. */
function credentialProblem(source: string, credential: { kind: string; namespace: string | null } | null): string | null {
  const cloud = CLOUD_KINDS[source];
  if (cloud) {
    if (credential && credential.namespace !== cloud.credentialNamespace) {
      return `Cloud-based inventory sources (such as ${source}) require credentials for the matching cloud service.`;
    }
    if (!credential && !cloud.credentialOptional) return 'Credential is required for a cloud source.';
    return null;
  }
  if (credential && ['insights', 'vault'].includes(credential.kind)) return `Credentials of type insights and vault are disallowed for ${source} inventory sources.`;
  if (credential && source === 'file' && ['scm', 'ssh'].includes(credential.kind)) return 'Credentials of type machine, source control, insights and vault are disallowed for file inventory sources.';
  return null;
}

/**
 * Checks a source as it will be stored (the body over the stored row): what each kind needs, and
 * that the caller may use the credential and, for scripts, run code (superusers and the
 * organization's admins, as AWX's custom inventory scripts).
 */
export async function checkSource(tx: Queryable, ctx: RequestContext, values: Values, existing: InventorySourceRow | null): Promise<void> {
  const stored: Row | null = existing;
  const get = (field: string, column = field) => (field in values ? values[field] : stored?.[column]);
  const source = String(get('source') ?? '');
  if (existing?.source === 'constructed') return checkConstructedSource(values, existing);
  if (source === 'constructed') throw new ApiError(400, { error: 'constructed not a valid source for inventory' });
  const errors: FieldErrors = {};
  const [inventory] = await tx.query<Pick<InventoryRow, 'kind' | 'organization_id'>>('SELECT kind, organization_id FROM inventories WHERE id = $1', [get('inventory', 'inventory_id')]);
  if (inventory?.kind === 'smart') errors.inventory = ['Cannot create Inventory Source for Smart Inventory'];
  else if (inventory?.kind === 'constructed') errors.inventory = ['Constructed inventories have no sources of this kind.'];

  const projectId = get('source_project', 'source_project_id') as number | null;
  // A path given from the project's root ("/inventory/hosts.ini") names the same file as the relative one.
  if (typeof values.source_path === 'string') values.source_path = values.source_path.replace(/^\/+/, '');
  const sourcePath = String(get('source_path') ?? '');
  const branch = String(get('scm_branch') ?? '');
  if (source === 'scm') {
    if (!projectId) errors.source_project = ['Project required for scm type sources.'];
    const problem = sourcePathProblem(sourcePath);
    if (problem) errors.source_path = [problem];
    const branchIssue = branchProblem(branch);
    if (branchIssue) errors.scm_branch = [branchIssue];
    else if (projectId && branch) {
      const [project] = await tx.query<Pick<ProjectRow, 'allow_override'>>('SELECT allow_override FROM projects WHERE id = $1', [projectId]);
      if (project && !project.allow_override) errors.scm_branch = ['Project does not allow overriding branch.'];
    }
  } else {
    if (projectId) errors.source_project = ['Cannot set source_project if not SCM type.'];
    if (sourcePath) errors.source_path = ['Cannot set source_path if not SCM type.'];
    if (branch) errors.scm_branch = ['Cannot set scm_branch if not SCM type.'];
  }

  const vars = parseVariables(String(get('source_vars') ?? ''));
  if (source === 'file') {
    const problem = fileSourceProblem(vars);
    if (problem) errors.source_vars = [problem];
  }

  const credentialId = get('credential', 'credential_id') as number | null;
  const [credential] = credentialId
    ? await tx.query<Pick<CredentialTypeRow, 'kind' | 'namespace'>>('SELECT t.kind, t.namespace FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1', [credentialId])
    : [];
  const credentialIssue = credentialProblem(source, credential ? { kind: credential.kind, namespace: credential.namespace } : null);
  if (credentialIssue) errors.credential = [credentialIssue];

  const hostFilter = String(get('host_filter') ?? '');
  try {
    if (hostFilter) hostFilterMatcher(hostFilter);
  } catch (err) {
    errors.host_filter = [`Invalid regular expression: ${(err as Error).message}`];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);

  if (credentialId && 'credential' in values && credentialId !== existing?.credential_id) await assertCanUseCredential(ctx, tx, credentialId, 'credential');
  const script = source === 'file' ? vars.script : undefined;
  const previousScript = existing?.source === 'file' ? parseVariables(existing.source_vars).script : undefined;
  if (typeof script === 'string' && script !== previousScript && !isSuperuser(ctx)) {
    if (!(await hasObjectRole(ctx, tx, 'organization', inventory.organization_id, 'admin_role'))) {
      throw forbidden('Only organization administrators may set an inventory script.');
    }
  }
}

/**
 * The source of a constructed inventory changes only in the fields its inventory shows
 * (AWX: "Cannot change field '...' on a constructed inventory source."), and its variables must
 * configure the constructed plugin.
 */
function checkConstructedSource(values: Values, existing: InventorySourceRow): void {
  const stored = existing as unknown as Row;
  const editable: readonly string[] = CONSTRUCTED_SOURCE_FIELDS;
  for (const [field, value] of Object.entries(values)) {
    if (editable.includes(field)) continue;
    const current = field in stored ? stored[field] : stored[`${field}_id`];
    if (value !== current) throw new ApiError(400, { error: `Cannot change field '${field}' on a constructed inventory source.` });
  }
  if ('source_vars' in values) {
    const problem = constructedVarsProblem(parseVariables(String(values.source_vars ?? '')));
    if (problem) throw ValidationError.field('source_vars', problem);
  }
}
