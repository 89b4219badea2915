// Factories: organizations, users, teams and role grants made through the HTTP API of a TestApp.
// Each one checks the status the API answered and throws with the response body otherwise, so a
// test's setup fails where it breaks instead of in some later assertion.
import type { Credentials, Response, TestApp } from './app.ts';

/** A user made by a factory: its id and the credentials to send requests as it. */
export type User = Credentials & { id: number };

/** An object of the API given by id, or by its body (anything with an id). */
export type Ref = number | { id: number };

/**
 * An object that holds roles: its body as the API answered it (summary_fields.object_roles is read
 * from it when present, else its url is fetched), or its detail URL, e.g. `/api/v2/projects/3/`.
 */
export type RoleObject = string | { url: string; summary_fields?: { object_roles?: Record<string, { id: number }> } };

let serial = 0;

/** A name no other factory call of this process answers: `${prefix}-${n}`. */
export const unique = (prefix: string) => `${prefix}-${++serial}`;

const idOf = (ref: Ref) => (typeof ref === 'number' ? ref : ref.id);

function expectStatus(res: Response, status: number, what: string): Response {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

/** Creates an organization (named `org-<n>` unless `name` is given) and answers its body. */
export async function newOrg(t: TestApp, fields: { name?: string; [field: string]: unknown } = {}): Promise<any> {
  const body = { ...fields, name: fields.name ?? unique('org') };
  return expectStatus(await t.post('/api/v2/organizations/', body), 201, `creating organization ${body.name}`).body;
}

export interface UserOptions {
  /** `user-<n>` unless given. */
  username?: string;
  /** `<username>-pw` unless given. */
  password?: string;
  /** Organizations the user joins as a member (POST /organizations/{id}/users/). */
  member?: Ref | Ref[];
  /** Organizations the user administers (POST /organizations/{id}/admins/). */
  admin?: Ref | Ref[];
  /** Organizations whose auditor_role the user is granted. */
  auditor?: Ref | Ref[];
  /** Other fields of the user: is_superuser, is_system_auditor, email... */
  [field: string]: unknown;
}

/** Creates a user, optionally member, admin or auditor of organizations, and answers its id and credentials. */
export async function newUser(t: TestApp, options: UserOptions = {}): Promise<User> {
  const { username = unique('user'), password = `${username}-pw`, member = [], admin = [], auditor = [], ...fields } = options;
  const res = expectStatus(await t.post('/api/v2/users/', { ...fields, username, password }), 201, `creating user ${username}`);
  const user: User = { id: res.body.id, username, password };
  for (const org of [member].flat()) {
    expectStatus(await t.post(`/api/v2/organizations/${idOf(org)}/users/`, { id: user.id }), 204, `adding ${username} to organization ${idOf(org)}`);
  }
  for (const org of [admin].flat()) {
    expectStatus(await t.post(`/api/v2/organizations/${idOf(org)}/admins/`, { id: user.id }), 204, `making ${username} admin of organization ${idOf(org)}`);
  }
  for (const org of [auditor].flat()) await grant(t, user, `/api/v2/organizations/${idOf(org)}/`, 'auditor_role');
  return user;
}

/** Creates a team of an organization (named `team-<n>` unless `name` is given), with `members` added, and answers its body. */
export async function newTeam(t: TestApp, org: Ref, fields: { name?: string; members?: Ref[]; [field: string]: unknown } = {}): Promise<any> {
  const { members = [], ...rest } = fields;
  const body = { ...rest, name: rest.name ?? unique('team'), organization: idOf(org) };
  const team = expectStatus(await t.post('/api/v2/teams/', body), 201, `creating team ${body.name}`).body;
  for (const user of members) {
    expectStatus(await t.post(`/api/v2/teams/${team.id}/users/`, { id: idOf(user) }), 204, `adding user ${idOf(user)} to team ${body.name}`);
  }
  return team;
}

/** The id of one role of an object, from its summary_fields.object_roles. */
export async function roleOf(t: TestApp, object: RoleObject, role: string): Promise<number> {
  let roles = typeof object === 'string' ? undefined : object.summary_fields?.object_roles;
  const url = typeof object === 'string' ? object : object.url;
  if (!roles?.[role]) {
    const res = expectStatus(await t.get(url), 200, `reading the roles of ${url}`);
    roles = res.body.summary_fields?.object_roles ?? {};
  }
  const found = roles![role];
  if (!found) throw new Error(`${url} has no ${role}; its roles are: ${Object.keys(roles!).join(', ') || 'none'}`);
  return found.id;
}

/** Grants a user roles of an object (POST /users/{id}/roles/ {id: role}). */
export async function grant(t: TestApp, user: Ref, object: RoleObject, ...roles: string[]): Promise<void> {
  for (const role of roles) {
    const res = await t.post(`/api/v2/users/${idOf(user)}/roles/`, { id: await roleOf(t, object, role) });
    expectStatus(res, 204, `granting user ${idOf(user)} ${role} of ${typeof object === 'string' ? object : object.url}`);
  }
}

/** Grants a team roles of an object (POST /teams/{id}/roles/ {id: role}). */
export async function grantTeam(t: TestApp, team: Ref, object: RoleObject, ...roles: string[]): Promise<void> {
  for (const role of roles) {
    const res = await t.post(`/api/v2/teams/${idOf(team)}/roles/`, { id: await roleOf(t, object, role) });
    expectStatus(res, 204, `granting team ${idOf(team)} ${role} of ${typeof object === 'string' ? object : object.url}`);
  }
}

/**
 * One new user per role of an object, by role name, plus `nobody` (a user with no role at all) and,
 * with `otherOrgAdmin`, the admin of another organization. `roles` lists role fields, or maps the
 * names to answer to role fields: `{ 'org admin': 'admin_role' }`. For a test to loop over:
 *
 *   const users = await roleMatrix(t, project, ['admin_role', 'use_role']);
 *   for (const [who, status] of Object.entries({ admin_role: 200, use_role: 403, nobody: 403 })) ...
 */
export async function roleMatrix<const R extends string>(
  t: TestApp,
  object: RoleObject,
  roles: readonly R[] | Record<R, string>,
  options: { otherOrgAdmin?: boolean } = {},
): Promise<Record<R | 'nobody', User> & { otherOrgAdmin?: User }> {
  const pairs: [string, string][] = Array.isArray(roles) ? roles.map((r) => [r, r]) : Object.entries(roles as Record<string, string>);
  const users: Record<string, User> = {};
  for (const [name, role] of pairs) {
    users[name] = await newUser(t, { username: unique(name.replace(/[^A-Za-z0-9]+/g, '-')) });
    await grant(t, users[name], object, role);
  }
  users.nobody = await newUser(t, { username: unique('nobody') });
  if (options.otherOrgAdmin) users.otherOrgAdmin = await newUser(t, { username: unique('other-org-admin'), admin: await newOrg(t) });
  return users as Record<R | 'nobody', User> & { otherOrgAdmin?: User };
}
