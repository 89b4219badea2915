/**
 * The local side of every external sign-in (LDAP, SAML, OIDC, social providers, RADIUS): the
 * local user linked to the identity is found (or created and linked), updated from what the
 * source says, its flags and memberships are applied, and each step is audited, all in one
 * transaction.
 */
import { callerIn, systemContextIn, type AuthMethod, type CurrentUser, type RequestContext, type Services } from '../../api/context.ts';
import { createObject, loadRow, parseBody, updateObject } from '../../api/crud.ts';
import { ApiError } from '../../api/errors.ts';
import { FieldProblem } from '../../api/fields.ts';
import type { Resource } from '../../api/resource.ts';
import { recordAudit, recordAudits, type AuditEvent } from '../../audit/record.ts';
import type { Queryable, Row, TableRow } from '../../db/database.ts';

type StoredUser = TableRow<'users'>;
/** What a refused sign-in tells of the account holding the username. */
type UsernameHolder = Pick<StoredUser, 'id' | 'username' | 'ldap_dn' | 'external_account'>;
import { loadRole, grantToUser } from '../../rbac/grants.ts';
import { roleId } from '../../rbac/graph.ts';
import { toCurrentUser } from '../basic.ts';
import { identityKey, linkedUser, linkIdentity, lockNewLinks, noteLinkedLogin, unlinkedLdapUser } from './identity-links.ts';
import type { MembershipChanges } from './mapping.ts';

export type { MembershipChanges } from './mapping.ts';

export interface ExternalIdentity {
  /** Where the user comes from: 'ldap', 'saml', 'oidc', 'github', 'google-oauth2', 'azuread-oauth2', 'radius'. */
  backend: string;
  /** Which one of the backend's kind, when there can be several (ldap1, saml:<idp>); the backend when absent. */
  source?: string;
  /** The subject at the source, the user's link (LDAP DN, SAML permanent id, OIDC sub, provider user id, RADIUS username). */
  uid: string;
  /** The username the source asserts: a new user's name; an existing user keeps his own (as AWX). */
  username: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  /** Flags to set (true/false); a flag left undefined is not changed. */
  flags?: { is_superuser?: boolean; is_system_auditor?: boolean };
  /** Memberships to apply (see mapping.ts for how maps turn into these). */
  memberships?: MembershipChanges;
  /** false: an identity linked to no user is refused instead of creating one (SOCIAL_AUTH_USER_FIELDS []). */
  createUsers?: boolean;
}

export interface SignInClient {
  remoteAddr: string;
  userAgent: string;
}

export interface SignInOptions {
  /** How the caller will be authenticated from now on (`session` for a browser sign-in, `basic` for Basic). */
  authMethod?: AuthMethod | null;
}

/** Why an external sign-in was refused; `reason` goes to the audit log, `message` to the user. */
export class ExternalSignInRefused extends ApiError {
  constructor(
    readonly reason: string,
    readonly message: string,
    status = 403,
  ) {
    super(status, { detail: message });
  }
}

/** The asserted username belongs to another account (a local user, or one linked to another identity). */
export class IdentityConflict extends ExternalSignInRefused {
  constructor(
    identity: ExternalIdentity,
    readonly holder: UsernameHolder,
  ) {
    super(
      'identity_conflict',
      `The username "${identity.username}" already belongs to another account, so a sign-in through ${identity.backend} cannot use it. Ask an administrator.`,
    );
  }
}

const USERNAME = /^[\w.@+-]{1,150}$/;

/** A profile value from the source, kept only if the user field accepts it (an invalid email becomes ''). */
function profileValue(users: Resource, name: 'email' | 'first_name' | 'last_name', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const field = users.fields[name];
  try {
    const parsed = field.parse(String(value).slice(0, 254));
    return typeof parsed === 'string' ? parsed.slice(0, 150) : '';
  } catch (err) {
    if (err instanceof FieldProblem) return '';
    throw err;
  }
}

function checkIdentity(identity: ExternalIdentity): void {
  // An empty subject would link every such sign-in to one user.
  if (typeof identity.uid !== 'string' || identity.uid.trim() === '') {
    throw new ExternalSignInRefused('no_subject', `The ${identity.backend} sign-in did not say who the user is.`);
  }
  if (!USERNAME.test(identity.username)) {
    throw new ExternalSignInRefused(
      'invalid_username',
      `The ${identity.backend} account's username "${identity.username.slice(0, 150)}" is not a valid username (letters, digits and @/./+/-/_ only, at most 150).`,
      400,
    );
  }
}

/** The columns saying where the user comes from. */
const sourceColumns = (identity: ExternalIdentity) =>
  identity.backend === 'ldap' ? { ldap_dn: identity.uid } : { external_account: identity.backend };

function profileOf(users: Resource, identity: ExternalIdentity): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of ['email', 'first_name', 'last_name'] as const) {
    const value = profileValue(users, name, identity[name]);
    if (value !== undefined) values[name] = value;
  }
  for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
    const value = identity.flags?.[flag];
    if (typeof value === 'boolean') values[flag] = value;
  }
  return values;
}

const holderKind = (row: UsernameHolder) => (row.ldap_dn || row.external_account ? 'external' : 'local');

function checkActive(row: StoredUser): void {
  if (!row.is_active) throw new ExternalSignInRefused('inactive', 'Your account is disabled.');
}

/** The user's profile, flags and source columns as the identity says; his username stays his own. */
async function updateUser(tx: Queryable, system: RequestContext, identity: ExternalIdentity, existing: StoredUser): Promise<StoredUser> {
  const users = system.service.resources.get('user');
  const wanted = { ...profileOf(users, identity), ...sourceColumns(identity) };
  const changed = Object.fromEntries(Object.entries(wanted).filter(([name, value]) => (existing as Row)[users.fields[name].column] !== value));
  if (!Object.keys(changed).length) return existing;
  return updateObject<StoredUser>(tx, system, users, existing, changed);
}

interface ResolvedUser {
  row: StoredUser;
  /** The user before this sign-in changed him; null when created. */
  before: StoredUser | null;
  created: boolean;
  /** An existing user was linked to the identity now (an LDAP user from before links). */
  linked: boolean;
}

/**
 * The user of an identity: the one linked to it; else an LDAP user from before links whose DN
 * it is; else a new user with the asserted username, linked to it. A username already taken is
 * refused (IdentityConflict), whoever holds it: AWX makes a new user with a random suffix for
 * social and SAML sign-ins, which leaves the real person to guess his name and an administrator
 * to grant roles to whichever "alice" he finds; a refusal is seen and settled.
 */
async function resolveUser(tx: Queryable, system: RequestContext, identity: ExternalIdentity): Promise<ResolvedUser> {
  const key = identityKey(identity);
  let user = await linkedUser(tx, key);
  if (!user) {
    await lockNewLinks(tx);
    user = await linkedUser(tx, key);
  }
  if (user) {
    checkActive(user);
    await noteLinkedLogin(tx, key);
    return { row: await updateUser(tx, system, identity, user), before: user, created: false, linked: false };
  }
  const earlier = identity.backend === 'ldap' ? await unlinkedLdapUser(tx, identity.uid) : null;
  if (earlier) {
    checkActive(earlier);
    await linkIdentity(tx, earlier.id, key);
    return { row: await updateUser(tx, system, identity, earlier), before: earlier, created: false, linked: true };
  }
  if (identity.createUsers === false) {
    throw new ExternalSignInRefused('account_creation_disabled', 'This account has not signed in before, and new accounts are not created (SOCIAL_AUTH_USER_FIELDS).');
  }
  const [holder] = await tx.query<UsernameHolder>('SELECT id, username, ldap_dn, external_account FROM users WHERE username = $1', [identity.username]);
  if (holder) throw new IdentityConflict(identity, holder);
  const row = await createObject<StoredUser>(tx, system, system.service.resources.get('user'), { username: identity.username, ...profileOf(system.service.resources.get('user'), identity), ...sourceColumns(identity) });
  await linkIdentity(tx, row.id, key);
  return { row, before: null, created: true, linked: false };
}

type Change = { kind: 'organization' | 'team'; name: string; organization?: string; role: string; granted: boolean };

async function findOrCreate(tx: Queryable, system: RequestContext, type: 'organization' | 'team', name: string, organizationId?: number): Promise<number> {
  const find = () =>
    type === 'organization'
      ? tx.query<{ id: number }>('SELECT id FROM organizations WHERE name = $1', [name])
      : tx.query<{ id: number }>('SELECT id FROM teams WHERE name = $1 AND organization_id = $2', [name, organizationId]);
  let [found] = await find();
  if (found) return found.id;
  // Serializes the sign-ins that create objects, so two first sign-ins cannot both create one.
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('external-sign-in-mapping'))");
  [found] = await find();
  if (found) return found.id;
  const resource = system.service.resources.get(type);
  const values = parseBody(resource, type === 'organization' ? { name } : { name, organization: organizationId }, 'create', null);
  return (await createObject(tx, system, resource, values)).id;
}

async function setRole(tx: Queryable, system: RequestContext, type: 'organization' | 'team', objectId: number, field: string, userId: number, wanted: boolean): Promise<boolean> {
  const id = await roleId(tx, type, objectId, field);
  if (id === null) return false;
  return grantToUser(tx, system, await loadRole(tx, id), userId, !wanted);
}

async function applyMemberships(tx: Queryable, system: RequestContext, userId: number, memberships: MembershipChanges): Promise<Change[]> {
  const changes: Change[] = [];
  const organizationIds = new Map<string, number>();
  const organization = async (name: string) => {
    let id = organizationIds.get(name);
    if (id === undefined) organizationIds.set(name, (id = await findOrCreate(tx, system, 'organization', name)));
    return id;
  };
  for (const entry of memberships.organizations ?? []) {
    const id = await organization(entry.name);
    for (const [key, field] of [['member', 'member_role'], ['admin', 'admin_role'], ['auditor', 'auditor_role']] as const) {
      const wanted = entry[key];
      if (wanted === undefined) continue;
      if (await setRole(tx, system, 'organization', id, field, userId, wanted)) changes.push({ kind: 'organization', name: entry.name, role: field, granted: wanted });
    }
  }
  for (const entry of memberships.teams ?? []) {
    const teamId = await findOrCreate(tx, system, 'team', entry.name, await organization(entry.organization));
    if (entry.member === undefined) continue;
    if (await setRole(tx, system, 'team', teamId, 'member_role', userId, entry.member)) {
      changes.push({ kind: 'team', name: entry.name, organization: entry.organization, role: 'member_role', granted: entry.member });
    }
  }
  return changes;
}

/**
 * Signs in the local user of an external identity, found by its link (identity-links.ts): created
 * at the first sign-in (marked external: no usable local password; ldap_dn for LDAP, else
 * external_account), updated from the source each time; applies its flags and memberships,
 * records auth.external_login and one auth.mapping_changed per change, and answers the user.
 * Throws ExternalSignInRefused when the user is disabled, and IdentityConflict (audited as
 * auth.identity_conflict) when no user is linked and the username is taken.
 */
export async function signInExternalUser(
  services: Pick<Services, 'db' | 'settings' | 'env' | 'resources' | 'caches'>,
  identity: ExternalIdentity,
  client: SignInClient,
  options: SignInOptions = {},
): Promise<CurrentUser> {
  checkIdentity(identity);
  const system = systemContextIn(services);
  const { source, subject } = identityKey(identity);
  try {
    return await services.db.transaction(async (tx) => {
      const { row, before, created, linked } = await resolveUser(tx, system, identity);
      const changes = identity.memberships ? await applyMemberships(tx, system, row.id, identity.memberships) : [];
      const user = toCurrentUser(await loadRow<StoredUser>(tx, system.service.resources.get('user'), row.id));
      const ctx = callerIn(services, user, options.authMethod ?? null);
      const target = { type: 'user', id: user.id, name: user.username };
      const events: AuditEvent[] = [
        { type: 'auth.external_login', ctx, target, client, detail: { backend: identity.backend, source, uid: subject, created, ...(linked && { linked }) } },
      ];
      for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
        if ((before?.[flag] ?? false) !== row[flag]) {
          events.push({ type: 'auth.mapping_changed', ctx, target, client, detail: { backend: identity.backend, flag, value: row[flag] } });
        }
      }
      for (const change of changes) {
        events.push({
          type: 'auth.mapping_changed',
          ctx,
          target,
          client,
          detail: { backend: identity.backend, [change.kind]: change.name, ...(change.organization && { organization: change.organization }), role: change.role, granted: change.granted },
        });
      }
      await recordAudits(tx, events);
      return user;
    });
  } catch (err) {
    if (err instanceof IdentityConflict) await recordIdentityConflict(services, identity, client, err.holder);
    if (err instanceof ExternalSignInRefused) await recordExternalLoginFailure(services, identity.backend, identity.username, client, err.reason);
    throw err;
  }
}

/** auth.identity_conflict: who asserted which username, and the account holding it (never a secret). */
async function recordIdentityConflict(services: Pick<Services, 'db' | 'settings' | 'env' | 'resources' | 'caches'>, identity: ExternalIdentity, client: SignInClient, holder: UsernameHolder): Promise<void> {
  const { source, subject } = identityKey(identity);
  await recordAudit(services.db, {
    type: 'auth.identity_conflict',
    outcome: 'denied',
    ctx: callerIn(services, null),
    actorUsername: identity.username,
    target: { type: 'user', id: holder.id, name: holder.username },
    client,
    detail: { backend: identity.backend, source, subject: subject.slice(0, 1024), username: identity.username, holder: holderKind(holder) },
  });
}

/** Records a refused external sign-in (auth.login, outcome failure) with the backend and a reason; never secrets. */
export async function recordExternalLoginFailure(
  services: Pick<Services, 'db' | 'settings' | 'env' | 'resources' | 'caches'>,
  backend: string,
  username: string,
  client: SignInClient,
  reason: string,
): Promise<void> {
  await recordAudit(services.db, {
    type: 'auth.login',
    outcome: 'failure',
    ctx: callerIn(services, null),
    actorUsername: username.slice(0, 150),
    client,
    detail: { backend, reason },
  });
}
