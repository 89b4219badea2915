/**
 * The labels a launch configuration saves (a schedule's, a workflow node's: AWX's
 * LabelSubListCreateAttachDetachView): attached by those who may change the configuration, of an
 * organization they may see; POST {name, organization} attaches that organization's label of that
 * name, created if missing.
 */
import { recordActivity } from '../../activity/record.ts';
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { createObject, parseRequestBody } from '../../api/crud.ts';
import { checkTenantAttach } from '../../api/tenant-boundary.ts';
import { forbidden } from '../../api/errors.ts';
import { joinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import type { LabelRow } from '../../db/tables.ts';

interface LaunchConfig {
  /** The configuration's resource name (its `type`). */
  name: string;
  /** The join table and its column naming the configuration. */
  table: string;
  column: string;
  /** Throws unless the caller may change the configuration. */
  assertMayChange(ctx: RequestContext, tx: Queryable, id: number): Promise<void>;
  /** Throws unless labels may be added now (a schedule's template must ask for them at launch). */
  assertTakesLabels?(ctx: RequestContext, tx: Queryable, id: number): Promise<void>;
}

export function launchConfigLabels(config: LaunchConfig): Relation {
  const link = joinTable('label', config.table, config.column, 'label_id');
  const mayAttach = async (ctx: RequestContext, tx: Queryable, id: number) => {
    await config.assertMayChange(ctx, tx, id);
    await config.assertTakesLabels?.(ctx, tx, id);
  };
  const mustSee = async (ctx: RequestContext, tx: Queryable, organization: number) => {
    if (!(await hasObjectRole(ctx, tx, 'organization', organization, 'read_role'))) throw forbidden();
  };
  return {
    ...link,
    async authorize(ctx, tx, id, labelId, detach) {
      if (detach) return config.assertMayChange(ctx, tx, id);
      await mayAttach(ctx, tx, id);
      const [label] = await tx.query<Pick<LabelRow, 'organization_id'>>('SELECT organization_id FROM labels WHERE id = $1', [labelId]);
      if (label) await mustSee(ctx, tx, label.organization_id);
    },
    async create(tx, ctx, parent, body, refused) {
      await mayAttach(ctx, tx, parent.id);
      const labels = ctx.service.resources.get('label');
      // Who may change the configuration may label it: the organization is checked below.
      const values = await parseRequestBody(labels, body, 'create', null, () => true, refused);
      const organization = values.organization as number;
      await mustSee(ctx, tx, organization);
      const [existing] = await tx.query<LabelRow>('SELECT * FROM labels WHERE organization_id = $1 AND name = $2', [organization, values.name]);
      const label = existing ?? (await createObject<LabelRow>(tx, ctx, labels, values));
      await checkTenantAttach(tx, config.name, parent.id, 'label', label.id);
      if (await link.attach!(tx, parent.id, label.id, ctx)) {
        await recordActivity(tx, ctx, { operation: 'associate', object1: config.name, object1Id: parent.id, object2: 'label', object2Id: label.id, association: 'labels', changes: {} });
      }
      return existing ? null : label;
    },
  };
}
