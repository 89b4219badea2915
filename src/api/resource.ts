import type { Queryable, ResourceRow, Row } from '../db/database.ts';
import type { RequestContext, Services } from './context.ts';
import { completeField, datetime, ref, type Field, type Vocabulary } from './fields.ts';
import type { Params } from './sql.ts';
import type { FieldErrors } from './errors.ts';
import type { RoleDeclaration } from '../rbac/object-roles.ts';

export type Values = Record<string, unknown>;

/** One object as the API shows it: the framework's keys, then every field and what decorate adds. */
export type SerializedObject = Row & {
  id: number;
  type: string;
  url: string;
  related: Record<string, string>;
  summary_fields: Record<string, unknown>;
};

/**
 * A link from one resource (the parent) to a set of another (the target), read as a table
 * expression with a parent column and a target column. Lists, related-path filters and
 * attach/detach are all built from it.
 */
export interface Relation {
  target: string;
  /** FROM clause (a table or a join) linking parents to targets. */
  from: string;
  parentColumn: string;
  targetColumn: string;
  /** Whether POST {id} attaches and {id, disassociate} detaches. */
  attachable: boolean;
  /** The list's URL segment when AWX names it apart from its related key (a schedule's unified_jobs are at jobs/). */
  segment?: string;
  /** For reverse foreign keys: the target field to set when a target is created through this list. */
  createWith?: string;
  /** Further values every target created through this list gets (personal tokens have no application). */
  createValues?: Record<string, unknown>;
  /** For ordered lists: the column of `from` holding each target's place, the list's order unless the query asks another. */
  positionColumn?: string;
  /** Name recorded as object_association in the activity stream. */
  association?: string;
  /** Decides, instead of the parent's access policy, whether the caller may link or unlink (throws 403/400). */
  authorize?(ctx: RequestContext, tx: Queryable, parentId: number, targetId: number, detach: boolean): Promise<void>;
  /**
   * Creates a target through this list when `createWith` cannot say how (a host created in a group
   * belongs to the group's inventory and is linked to the group), inside the request's transaction,
   * checking permission itself. Answers the new row (201), or null when the body named an existing
   * object that was linked instead (204). The route checks the body first with the target's create
   * schema less `createFills`; what the schema refused (`refused`, by field) is answered with the
   * declarations' problems in one 400, after the hook's own permission check (crud.ts parseRequestBody).
   */
  create?(tx: Queryable, ctx: RequestContext, parent: ResourceRow, body: Record<string, unknown>, refused: FieldErrors): Promise<ResourceRow | null>;
  /**
   * AWX's SubListCreateAttachDetachAPIView: a POST without an id creates the object (the target's
   * own create permission and checks) and links it to the parent (the list's attach permission and
   * checks) in one transaction, so a refused link keeps nothing (create-then-link.ts). `defaults`
   * fills in what the body leaves out (a host's group is of the host's inventory; list those fields
   * in `createFills`).
   */
  createAndLink?: { defaults?(tx: Queryable, parent: ResourceRow): Promise<Values> };
  /** The target's fields `create` fills in itself (a group's inventory), which its body need not give. */
  createFills?: readonly string[];
  attach?(tx: Queryable, parentId: number, targetId: number, ctx: RequestContext): Promise<boolean>;
  detach?(tx: Queryable, parentId: number, targetId: number, ctx: RequestContext): Promise<boolean>;
}

/**
 * A resource's access policy: what the caller may see, as SQL, and what the caller may do with
 * one object. The framework consults it on every list, detail, create, update, delete and attach.
 */
export interface AccessPolicy<R extends ResourceRow = ResourceRow> {
  /** A condition over `alias` limiting visible rows, or null when every row is visible. */
  visible(ctx: RequestContext, alias: string, params: Params): string | null;
  /**
   * A refusal (its message) when the caller may not open the list at all, as AWX refuses the
   * system job templates' list to all but superusers and system auditors; by default every
   * authenticated user may, and sees the rows `visible` lets through.
   */
  listRefusal?(ctx: RequestContext): string | null;
  canCreate(ctx: RequestContext, tx: Queryable, values: Values): Promise<boolean> | boolean;
  /**
   * For user_capabilities, lists also pass `page`: every row serialized together with this one.
   * A policy that needs a query per row may instead look the whole page up in one query and
   * answer the other rows from it (the answers must be the same).
   */
  canChange(ctx: RequestContext, tx: Queryable, row: R, values: Values, page?: readonly R[]): Promise<boolean> | boolean;
  canDelete(ctx: RequestContext, tx: Queryable, row: R, page?: readonly R[]): Promise<boolean> | boolean;
  /** May the caller link `targetId` to (or unlink it from) this object through `relation`? */
  canAttach(ctx: RequestContext, tx: Queryable, row: R, relation: string, targetId: number, detach: boolean): Promise<boolean> | boolean;
  /**
   * Looks up, once per request, facts about the caller that `visible` may then read synchronously
   * (so it can answer simpler SQL). Called before `visible`; `visible` must be right without it.
   */
  prepare?(ctx: RequestContext, db: Queryable): Promise<void>;
  /**
   * What else may be done with one object, by name, for the routes that name them (launch, update,
   * cancel...). Every policy also has the actions of object-actions.ts (view, change, edit).
   * An action answers false for a plain 403, or throws its own refusal.
   */
  actions?: Readonly<Record<string, ObjectAction<R>>>;
  /**
   * What summary_fields.user_capabilities shows beyond edit (canChange) and delete (canDelete), as
   * AWX's serializer of the resource does (start, schedule, copy, adhoc, use): a check, the name of
   * another capability whose answer it repeats (schedule: 'start'), or false to leave a default
   * out (an instance shows no delete). A check named edit or delete replaces the default one (a
   * service request that can no longer be deleted shows no delete, though its DELETE answers 409).
   */
  capabilities?: Readonly<Record<string, Capability<R> | string | false>>;
}

/**
 * One capability of one row. Lists pass the `page` of rows serialized together, so a check can
 * look the whole page up at once (hasObjectRoleOnRow).
 */
// Both are a method's type, so that checks of a typed row (R) still serve the framework, which passes plain rows.
export type Capability<R extends ResourceRow = ResourceRow> = { check(ctx: RequestContext, tx: Queryable, row: R, page?: readonly R[]): Promise<boolean> | boolean }['check'];

/** May the caller do this with the (visible) object? */
export type ObjectAction<R extends ResourceRow = ResourceRow> = { check(ctx: RequestContext, tx: Queryable, row: R): Promise<boolean> | boolean }['check'];

/**
 * What a resource may add to the generic create/update/delete, all inside the change's transaction.
 * R is the resource's row (its table's type from src/db/tables.ts).
 */
export interface ResourceHooks<R extends ResourceRow = ResourceRow> {
  /** Adjusts or checks parsed values before they are written (hash a password, refuse an escalation). */
  beforeWrite?(tx: Queryable, ctx: RequestContext, values: Values, existing: R | null): Promise<void> | void;
  /** Runs after the row is written (sync roles, computed fields). */
  afterWrite?(tx: Queryable, ctx: RequestContext, row: R, existing: R | null): Promise<void> | void;
  /** Runs before the row is deleted. */
  beforeDelete?(tx: Queryable, ctx: RequestContext, row: R): Promise<void> | void;
}

/**
 * A resource, declared with the type R of its rows (`defineResource<JobTemplateRow>({...})`): hooks,
 * serializers, access checks and exports receive rows of that type. The methods here are declared as
 * methods on purpose: a Resource<JobTemplateRow> is then also a Resource (of plain rows) for the
 * framework, which treats every resource alike.
 */
export interface ResourceDeclaration<R extends ResourceRow = ResourceRow> {
  /** snake_case model name: the object's `type` and its activity-stream name. */
  name: string;
  /** URL segment of the list (defaults to name + "s"). */
  plural?: string;
  table: string;
  /** Name shown in OPTIONS ("Team List") and messages. */
  label: string;
  description?: string;
  fields: Record<string, Field>;
  /**
   * References shown only in related and summary_fields, and filtered on, like created_by: AWX's
   * foreign keys its serializer does not list as fields (a run's schedule).
   */
  links?: Record<string, Field>;
  /** Fields (a final reference last) forming the named URL: ['name', 'organization'] -> Ops++Default. */
  namedUrl?: string[];
  /** Fields searched by ?search=. */
  search?: string[];
  /** Default ordering. */
  ordering?: string;
  /** Related lists under /<plural>/<id>/<name>/. */
  related?: Record<string, Relation>;
  /** Columns of this resource shown when another object summarizes it. */
  summaryColumns?: string[];
  /** Unique constraints, each with the fields named in its error message. */
  unique?: string[][];
  /** Roles created with each object (admin_role, member_role...). */
  roles?: Record<string, RoleDeclaration>;
  access: AccessPolicy<R>;
  /** Which generic operations exist. */
  operations?: { create?: boolean; update?: boolean; delete?: boolean };
  hooks?: ResourceHooks<R>;
  /** Leave out created/modified/created_by/modified_by (append-only logs keep their own timestamp). */
  untracked?: boolean;
  /**
   * Leave out created/modified but keep created_by/modified_by: records the service writes that keep
   * their own timestamp field (`created` among their fields, `captured_at`); no link when no user made them.
   */
  ownTimestamps?: boolean;
  /** Adds what is computed rather than stored (fields, related links, summary fields) to one serialized object. */
  decorate?(row: R, out: SerializedObject, prepared?: unknown): void;
  /**
   * Adds what only the object's own page shows (AWX's detail serializers: a run's command line and
   * counts of its events), too costly or too large for every row of a list. It is read beside the
   * serialization of the object, so it adds its own fields and reads none of `out`.
   */
  detail?(db: Queryable, row: R, out: Row): Promise<void>;
  /**
   * Loads what decorate needs for a whole page at once (names of the objects rows point to...); its
   * answer is passed to decorate. `ctx` is the caller, for what depends on who asks (counts of what he sees).
   */
  prepare?(db: Queryable, rows: readonly R[], ctx: RequestContext): Promise<unknown>;
  /**
   * Creates an object in place of the framework's insert, for objects that are not plain rows (an
   * ad hoc command is launched): given parsed values, answers the stored row or throws a typed error.
   */
  create?(services: Services, ctx: RequestContext, values: Values): Promise<R>;
  /**
   * Removes an object in place of the framework's delete, for objects a DELETE only marks (a host
   * metric is soft-deleted, as AWX does); called once canDelete allowed it, inside the transaction.
   */
  remove?(tx: Queryable, ctx: RequestContext, row: R): Promise<void>;
  /** Downloads of the whole list by ?format=<key> (csv, siem...): filters and ordering apply, pagination does not. */
  exports?: Record<string, ListExport<R>>;
  /**
   * For lists mixing several kinds (unified jobs): the column naming each row's own type, which
   * ?type= filters on and which gives each row its type and URL.
   */
  typeColumn?: string;
  /**
   * Query parameters a list reads itself, beyond field filters (the hosts' ?host_filter=): each
   * answers a SQL condition over `alias`, or throws an ApiError for a value it cannot read. `ctx` is the caller.
   */
  queryFilters?: Record<string, (value: string, alias: string, params: Params, ctx: RequestContext) => string>;
  /** The types a mixed list holds (OPTIONS `types`), for resources with a typeColumn. */
  types?: string[];
  /** The composition's vocabulary entry listing the types a mixed list holds, when only the composition knows them (composeResource). */
  composedTypes?: string;
  /** What AWX calls this type in the choices of `type` (Playbook Run for jobs); the label without " List" unless said. */
  typeLabel?: string;
  /** False for resources only reached through other objects' lists (a run's events): no /api/v2/<plural>/ routes. */
  topLevel?: boolean;
}

/** One download format of a list: every matching row (up to maxRows) rendered as one body. */
export interface ListExport<R extends ResourceRow = ResourceRow> {
  contentType: string;
  /** Offered as an attachment under this name (Content-Disposition). */
  filename?: string;
  /** At most this many rows (default 100,000); a longer result is cut and marked by X-Export-Truncated: true. */
  maxRows?: number;
  /** Renders the database rows (columns as stored) in the list's order. */
  render(rows: R[]): string;
}

export interface Resource<R extends ResourceRow = ResourceRow> extends Required<Omit<ResourceDeclaration<R>, 'hooks' | 'decorate' | 'detail' | 'prepare' | 'create' | 'remove' | 'description' | 'namedUrl' | 'untracked' | 'ownTimestamps' | 'operations' | 'exports' | 'typeColumn' | 'types' | 'composedTypes' | 'topLevel' | 'queryFilters'>> {
  operations: { create: boolean; update: boolean; delete: boolean };
  description: string;
  namedUrl: string[] | null;
  hooks: ResourceHooks<R>;
  decorate?(row: R, out: SerializedObject, prepared?: unknown): void;
  detail?(db: Queryable, row: R, out: Row): Promise<void>;
  prepare?(db: Queryable, rows: readonly R[], ctx: RequestContext): Promise<unknown>;
  create?(services: Services, ctx: RequestContext, values: Values): Promise<R>;
  remove?(tx: Queryable, ctx: RequestContext, row: R): Promise<void>;
  exports: Record<string, ListExport<R>>;
  typeColumn?: string;
  /** What OPTIONS lists as `types`: the declared types of a mixed list, else the resource's own. */
  types: string[];
  composedTypes?: string;
  queryFilters: NonNullable<ResourceDeclaration['queryFilters']>;
  topLevel: boolean;
  /** Every field including created/modified/created_by/modified_by. */
  allFields: Record<string, Field>;
  listPath: string;
  detailPath(id: number): string;
}

const COMMON_FIELDS: Record<string, Field> = {
  created: datetime({ readOnly: true, label: 'Created', nullable: false }),
  modified: datetime({ readOnly: true, label: 'Modified', nullable: false }),
  created_by: ref('user', { readOnly: true }),
  modified_by: ref('user', { readOnly: true }),
};

/** Declares a resource; the framework derives its endpoints, filters, OPTIONS and activity stream from this. */
export function defineResource<R extends ResourceRow = ResourceRow>(decl: ResourceDeclaration<R>): Resource<R> {
  const plural = decl.plural ?? `${decl.name}s`;
  const fields = Object.fromEntries(Object.entries(decl.fields).map(([name, f]) => [name, completeField(name, f)]));
  const commonNames = decl.untracked ? [] : decl.ownTimestamps ? ['created_by', 'modified_by'] : Object.keys(COMMON_FIELDS);
  const common = Object.fromEntries(commonNames.map((name) => [name, completeField(name, COMMON_FIELDS[name])]));
  const links = Object.fromEntries(Object.entries(decl.links ?? {}).map(([name, f]) => [name, completeField(name, f)]));
  const allFields = { ...fields, ...links, ...common };
  const resource: Resource<R> = {
    ...decl,
    plural,
    description: decl.description ?? '',
    fields,
    links,
    allFields,
    namedUrl: decl.namedUrl ?? null,
    search: decl.search ?? [],
    ordering: decl.ordering ?? 'id',
    related: decl.related ?? {},
    summaryColumns: decl.summaryColumns ?? ['id', 'name', 'description'],
    unique: decl.unique ?? [],
    roles: decl.roles ?? {},
    operations: { create: true, update: true, delete: true, ...decl.operations },
    hooks: decl.hooks ?? {},
    exports: decl.exports ?? {},
    topLevel: decl.topLevel ?? true,
    types: decl.types ?? (decl.composedTypes ? [] : [decl.name]),
    typeLabel: decl.typeLabel ?? decl.label.replace(/ List$/, ''),
    queryFilters: decl.queryFilters ?? {},
    listPath: `/api/v2/${plural}/`,
    detailPath: (id: number) => `/api/v2/${plural}/${id}/`,
  };
  return resource;
}

/**
 * The resource as one composition holds it: each field known only once the service is composed
 * (Field.composed) replaced by the field the composition's vocabulary makes, and the types of a
 * mixed list named by `composedTypes` filled in. Unchanged without either.
 */
export function composeResource<R extends Resource>(resource: R, vocabulary: Vocabulary): R {
  const types = resource.composedTypes === undefined ? resource.types : composedTypes(vocabulary, resource.composedTypes);
  if (!Object.values(resource.fields).some((f) => f.composed)) return types === resource.types ? resource : { ...resource, types };
  const compose = (fields: Record<string, Field>) => Object.fromEntries(Object.entries(fields).map(([name, f]) => [
    name, f.composed ? { ...completeField(name, f.composed(vocabulary)), column: f.column, label: f.label } : f,
  ]));
  return { ...resource, types, fields: compose(resource.fields), allFields: compose(resource.allFields) };
}

function composedTypes(vocabulary: Vocabulary, name: string): string[] {
  if (!(name in vocabulary)) throw new Error(`the composition has no vocabulary ${name}`);
  return [...(vocabulary[name] as readonly string[])];
}
