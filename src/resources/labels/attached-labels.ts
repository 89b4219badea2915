/** Labels attached to an object (a job template, an inventory): who may attach them, and POST {name}. */
import { recordActivity } from '../../activity/record.ts';
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { createObject, parseRequestBody } from '../../api/crud.ts';
import { forbidden } from '../../api/errors.ts';
import { joinTable, type Relation } from '../../api/relations.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import type { LabelRow } from '../../db/tables.ts';

interface LabelOwner {
  /** The owner's resource name (its `type`). */
  name: string;
  /** The join table and its column naming the owner. */
  table: string;
  column: string;
  /** Throws 403 unless the caller administers the owner. */
  assertAdmin(ctx: RequestContext, tx: Queryable, ownerId: number): Promise<void>;
}

/**
 * Labels are organization-wide: attaching one needs the owner's admin role and sight of the label's
 * organization; POST {name} attaches the owner's organization's label of that name, created if missing.
 */
export function attachedLabels(owner: LabelOwner): Relation {
  const link = joinTable('label', owner.table, owner.column, 'label_id');
  const associate = async (tx: Queryable, ctx: RequestContext, ownerId: number, labelId: number) => {
    if (!(await link.attach!(tx, ownerId, labelId, ctx))) return;
    await recordActivity(tx, ctx, { operation: 'associate', object1: owner.name, object1Id: ownerId, object2: 'label', object2Id: labelId, association: 'labels', changes: {} });
  };
  return {
    ...link,
    async authorize(ctx, tx, ownerId, labelId, detach) {
      await owner.assertAdmin(ctx, tx, ownerId);
      if (detach) return;
      const [label] = await tx.query<Pick<LabelRow, 'organization_id'>>('SELECT organization_id FROM labels WHERE id = $1', [labelId]);
      if (label && !(await hasObjectRole(ctx, tx, 'organization', label.organization_id, 'read_role'))) throw forbidden();
    },
    createFills: ['organization'],
    async create(tx, ctx, parent: ResourceRow & { organization_id: number | null }, body, refused) {
      await owner.assertAdmin(ctx, tx, parent.id);
      const labels = ctx.service.resources.get('label');
      const orphan = parent.organization_id === null && { organization: [`The ${owner.name.replace(/_/g, ' ')} has no organization for its labels.`] };
      // The owner's admin may label it: no further permission to check.
      const values = await parseRequestBody(labels, { ...body, organization: parent.organization_id }, 'create', null, () => true, { ...refused, ...orphan });
      const name = values.name as string;
      const [existing] = await tx.query<LabelRow>('SELECT * FROM labels WHERE organization_id = $1 AND name = $2', [parent.organization_id, name]);
      if (existing) {
        await associate(tx, ctx, parent.id, existing.id);
        return null;
      }
      const label = await createObject<LabelRow>(tx, ctx, labels, values);
      await associate(tx, ctx, parent.id, label.id);
      return label;
    },
  };
}
