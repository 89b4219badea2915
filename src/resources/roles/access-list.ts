/**
 * AWX's ResourceAccessList: the users holding any role on one object, each with how they hold it.
 * `summary_fields.direct_access`: roles of the object a user holds himself, and roles granted to a
 * team he belongs to (with the team named); `indirect_access`: roles of other objects that give
 * roles of this one (an organization's admin_role gives its projects' roles), and the system
 * roles. Each entry names the role, whether the caller may take it away (`unattach`), and the
 * roles of the object it gives (`descendant_roles`).
 */
import type { RequestContext, ResourceSet } from '../../api/context.ts';
import type { Resource } from '../../api/resource.ts';
import { ident } from '../../api/sql.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import type { UserRow } from '../../db/tables.ts';
import { assertCanGrant, assertTeamMayHold, type Holder, type RoleRow } from '../../rbac/grants.ts';
import { describeRole } from './role.resource.ts';

interface AccessEntry {
  role: Record<string, unknown>;
  descendant_roles: string[];
}

/** A user of the access list, with what decides his system entries. */
export type AccessListUser = Pick<UserRow, 'id' | 'is_superuser' | 'is_system_auditor'>;

/** An object a role belongs to, with its name (or username) as display_name; a team's organization_id names its organization. */
type NamedObject = ResourceRow & { display_name: string; organization_id?: number | null };

const TEAM_HOLDING_ROLES = ['member_role', 'admin_role'];

/** SQL: the users holding some role of the object, directly or through a team or an ancestor role, and every superuser and system auditor. */
export function accessListScope(contentType: string, objectId: number) {
  return (alias: string, params: { add(v: unknown): string }) => `(${alias}.id IN (
      SELECT role_users.user_id FROM role_users JOIN role_ancestors ON role_ancestors.ancestor_id = role_users.role_id
      JOIN roles ON roles.id = role_ancestors.descendent_id WHERE roles.content_type = ${params.add(contentType)} AND roles.object_id = ${params.add(objectId)})
    OR ${alias}.is_superuser OR ${alias}.is_system_auditor)`;
}

/** Names of the objects roles belong to, looked up once per request. */
class ObjectNames {
  private readonly names = new Map<string, Promise<NamedObject | undefined>>();
  constructor(private readonly db: Queryable, private readonly resources: ResourceSet) {}

  get(contentType: string, id: number): Promise<NamedObject | undefined> {
    const key = `${contentType}:${id}`;
    let found = this.names.get(key);
    if (!found) {
      const owner = this.resources.find(contentType);
      const column = owner?.fields.name ? 'name' : owner?.fields.username ? 'username' : null;
      found = owner && column
        ? this.db.query<NamedObject>(`SELECT *, ${ident(column)} AS display_name FROM ${ident(owner.table)} WHERE id = $1`, [id]).then((rows) => rows[0])
        : Promise.resolve(undefined);
      this.names.set(key, found);
    }
    return found;
  }
}

/** Builds the access entries of the users of one page of an object's access list. */
export class AccessListBuilder {
  private readonly names: ObjectNames;
  private objectRoles: Promise<RoleRow[]> | null = null;
  private permissive: Promise<Set<number>> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly ctx: RequestContext,
    private readonly resource: Resource,
    private readonly object: ResourceRow,
  ) {
    this.names = new ObjectNames(db, ctx.service.resources);
  }

  /** The roles of the object. */
  private rolesOfObject(): Promise<RoleRow[]> {
    this.objectRoles ??= this.db.query<RoleRow>(
      'SELECT id, role_field, content_type, object_id, singleton_name FROM roles WHERE content_type = $1 AND object_id = $2 ORDER BY id',
      [this.resource.name, this.object.id],
    );
    return this.objectRoles;
  }

  /** Every role whose holders hold some role of the object (the object's roles included). */
  private permissiveRoles(): Promise<Set<number>> {
    this.permissive ??= this.rolesOfObject().then(async (roles) => {
      const rows = await this.db.query<{ id: number }>('SELECT DISTINCT ancestor_id AS id FROM role_ancestors WHERE descendent_id = ANY($1::integer[])', [roles.map((r) => r.id)]);
      return new Set(rows.map((r) => r.id));
    });
    return this.permissive;
  }

  /** The object's roles `roleId` gives, by role field. */
  private async descendantRoles(roleId: number): Promise<string[]> {
    const roles = await this.rolesOfObject();
    const rows = await this.db.query<{ id: number }>(
      'SELECT descendent_id AS id FROM role_ancestors WHERE ancestor_id = $1 AND descendent_id = ANY($2::integer[])',
      [roleId, roles.map((r) => r.id)],
    );
    const given = new Set(rows.map((r) => r.id));
    return roles.filter((r) => given.has(r.id)).map((r) => r.role_field);
  }

  private async mayUnattach(role: RoleRow, holder: Holder): Promise<boolean> {
    if (role.singleton_name || role.content_type === null) return false;
    try {
      if (holder.type === 'team') assertTeamMayHold(role, holder.id, true);
      await assertCanGrant(this.ctx, this.db, role, holder);
      return true;
    } catch {
      return false;
    }
  }

  /** The role as AWX's access list shows it: name, description, its object and whether the caller may take it away. */
  private async describe(role: RoleRow, holder: Holder): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = { id: role.id, ...describeRole(this.ctx.service.resources, role) };
    if (role.content_type && role.object_id !== null) {
      const owner = this.ctx.service.resources.find(role.content_type);
      const object = await this.names.get(role.content_type, role.object_id);
      if (owner && object) {
        out.resource_name = object.display_name;
        out.resource_type = role.content_type;
        out.related = { [role.content_type]: owner.detailPath(role.object_id) };
      }
    }
    out.user_capabilities = { unattach: await this.mayUnattach(role, holder) };
    return out;
  }

  /** The roles a team's members hold through it that give roles of the object, each naming the team. */
  private async teamEntries(teamId: number): Promise<AccessEntry[]> {
    const permissive = await this.permissiveRoles();
    const [member] = await this.db.query<{ id: number }>(`SELECT id FROM roles WHERE content_type = 'team' AND object_id = $1 AND role_field = 'member_role'`, [teamId]);
    if (!member) return [];
    const granted = await this.db.query<RoleRow>(
      `SELECT r.id, r.role_field, r.content_type, r.object_id, r.singleton_name FROM role_parents p JOIN roles r ON r.id = p.role_id
       WHERE p.parent_id = $1 AND r.id = ANY($2::integer[]) AND NOT (r.content_type = 'team' AND r.object_id = $3) ORDER BY r.id`,
      [member.id, [...permissive], teamId],
    );
    const team = await this.names.get('team', teamId);
    const organization = team?.organization_id ? await this.names.get('organization', team.organization_id) : undefined;
    const descendants = await this.descendantRoles(member.id);
    const entries: AccessEntry[] = [];
    for (const role of granted) {
      const described = await this.describe(role, { type: 'team', id: teamId });
      const { user_capabilities, ...rest } = described;
      entries.push({
        role: { ...rest, team_id: teamId, team_name: team?.display_name ?? '', team_organization_name: organization?.display_name ?? '', user_capabilities },
        descendant_roles: descendants,
      });
    }
    return entries;
  }

  /** summary_fields.direct_access and indirect_access of one user. */
  async entriesOf(user: AccessListUser): Promise<{ direct_access: AccessEntry[]; indirect_access: AccessEntry[] }> {
    const permissive = await this.permissiveRoles();
    const own = new Set((await this.rolesOfObject()).map((r) => r.id));
    const held = await this.db.query<RoleRow>(
      `SELECT r.id, r.role_field, r.content_type, r.object_id, r.singleton_name FROM role_users u JOIN roles r ON r.id = u.role_id
       WHERE u.user_id = $1 AND r.id = ANY($2::integer[]) ORDER BY r.id`,
      [user.id, [...permissive]],
    );
    const direct: AccessEntry[] = [];
    const indirect: AccessEntry[] = [];
    const teams = new Set<number>();
    for (const role of held) {
      if (own.has(role.id)) direct.push({ role: await this.describe(role, { type: 'user', id: user.id }), descendant_roles: await this.descendantRoles(role.id) });
      else if (role.content_type === 'team' && TEAM_HOLDING_ROLES.includes(role.role_field)) teams.add(role.object_id!);
      else indirect.push({ role: await this.describe(role, { type: 'user', id: user.id }), descendant_roles: await this.descendantRoles(role.id) });
    }
    for (const teamId of teams) direct.push(...(await this.teamEntries(teamId)));
    if (user.is_superuser) indirect.push(systemEntry(this.ctx.service.resources, 'system_administrator', (await this.rolesOfObject()).map((r) => r.role_field)));
    else if (user.is_system_auditor) indirect.push(systemEntry(this.ctx.service.resources, 'system_auditor', ['read_role']));
    return { direct_access: direct, indirect_access: indirect };
  }
}

/** The entry of a system role, which the access list never offers to take away. */
function systemEntry(resources: ResourceSet, singleton: string, descendants: string[]): AccessEntry {
  const { name, description } = describeRole(resources, { singleton_name: singleton, content_type: null, role_field: singleton });
  return { role: { id: null, name, description, user_capabilities: { unattach: false } }, descendant_roles: descendants };
}
