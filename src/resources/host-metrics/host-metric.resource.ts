import { boolean, datetime, integer, text, type Field } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { HostMetricRow } from '../../db/tables.ts';
import { hostMetricAccess } from './host-metric-access.ts';

/**
 * AWX's HostMetric: every host name jobs have automated (src/ansible/host-summaries.ts records them
 * at each job's end). DELETE is AWX's soft delete: the row stays, marked deleted, and counts once
 * more in deleted_counter; the next job automating the name revives it. See docs/host-metrics.md.
 */
export const hostMetrics = defineResource<HostMetricRow>({
  name: 'host_metric',
  table: 'host_metrics',
  label: 'Host Metrics List',
  description: 'The hosts jobs have automated, by name, with when and how often (system administrators and auditors).',
  untracked: true,
  summaryColumns: ['id', 'hostname'],
  fields: {
    hostname: text({ readOnly: true, maxLength: 512 }),
    first_automation: datetime({ readOnly: true, nullable: false, helpText: 'When the host was first automated against' }),
    last_automation: datetime({ readOnly: true, nullable: false, helpText: 'When the host was last automated against' }),
    last_deleted: datetime({ readOnly: true, helpText: 'When the host was last deleted' }),
    automated_counter: integer({ readOnly: true, helpText: 'How many times was the host automated' }),
    deleted_counter: integer({ readOnly: true, helpText: 'How many times was the host deleted' }),
    deleted: boolean({
      readOnly: true,
      helpText: 'Boolean flag saying whether the host is deleted and therefore not counted into the subscription consumption',
    }),
    used_in_inventories: integer({ readOnly: true, nullable: true, helpText: 'How many inventories contain this host' }),
  },
  search: ['hostname'],
  access: hostMetricAccess,
  operations: { create: false, update: false, delete: true },
  // AWX's HostMetric.soft_delete: a host already deleted is left as it is.
  async remove(tx, _ctx, row) {
    await tx.query(
      `UPDATE host_metrics SET deleted = true, deleted_counter = deleted_counter + 1, last_deleted = now() WHERE id = $1 AND NOT deleted`,
      [row.id],
    );
  },
});

/** A date column as AWX's DateField reads (YYYY-MM-DD); drivers give it as a Date at local midnight. */
function calendarDate(field: Field): Field {
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    ...field,
    serialize: (value) => (value instanceof Date ? `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}` : value),
  };
}

export const hostMetricSummaryMonthly = defineResource({
  name: 'host_metric_summary_monthly',
  plural: 'host_metric_summary_monthly',
  table: 'host_metric_summary_monthly',
  label: 'Host Metrics Summary Monthly',
  description: 'Per month: hosts first automated, hosts deleted and hosts consumed (system administrators and auditors).',
  untracked: true,
  summaryColumns: ['id', 'date'],
  fields: {
    date: calendarDate(text({ readOnly: true, helpText: 'The first day of the month (YYYY-MM-DD).' })),
    license_consumed: integer({ readOnly: true, helpText: 'How many unique hosts are consumed from the license' }),
    license_capacity: integer({ readOnly: true, helpText: "'License capacity as max. number of unique hosts" }),
    hosts_added: integer({ readOnly: true, helpText: 'How many hosts were added in the associated month, consuming more license capacity' }),
    hosts_deleted: integer({ readOnly: true, helpText: 'How many hosts were deleted in the associated month, freeing the license capacity' }),
    indirectly_managed_hosts: integer({ readOnly: true, helpText: 'Manually entered number indirectly managed hosts for a certain month' }),
  },
  search: ['date'],
  access: hostMetricAccess,
  operations: { create: false, update: false, delete: false },
});
