import { FormSelect, FormSelectOption } from '@patternfly/react-core';
import type { paths } from '../../api/schema';
import { ChartCard } from './ChartCard';
import { COLORS, TimeBars } from './charts';
import { FigureTable, figure } from './FigureTable';
import { useAnalytics } from './use-analytics';

export type Granularity = NonNullable<NonNullable<paths['/api/v2/svc_analytics/job_trends/']['get']['parameters']['query']>['granularity']>;
const BUCKET: Record<Granularity, string> = { day: 'Day', week: 'Week of', month: 'Month of' };

export function GranularitySelect({ value, onChange }: { value: Granularity; onChange: (g: Granularity) => void }) {
  return (
    <FormSelect aria-label="Granularity" value={value} onChange={(_e, v) => onChange(v as Granularity)} style={{ width: 'auto' }}>
      <FormSelectOption value="day" label="By day" />
      <FormSelectOption value="week" label="By week" />
      <FormSelectOption value="month" label="By month" />
    </FormSelect>
  );
}

/** Jobs finished per bucket: successful, failed, and the rest (error, canceled) stacked. */
export function TrendsCard({ period, granularity, onGranularity }: { period: string; granularity: Granularity; onGranularity: (g: Granularity) => void }) {
  const q = useAnalytics('job_trends', { period, granularity });
  const buckets = q.data ?? [];
  const total = buckets.reduce((sum, b) => sum + b.job_count, 0);
  const successful = buckets.reduce((sum, b) => sum + b.successful, 0);
  const failed = buckets.reduce((sum, b) => sum + b.failed, 0);
  return (
    <ChartCard title="Job trends" controls={<GranularitySelect value={granularity} onChange={onGranularity} />} error={q.error} pending={q.isPending} empty={total === 0}>
      {(shown) => (
        <>
          <TimeBars
            steps={buckets.map((b) => ({ date: b.date, values: [b.successful, b.failed, b.job_count - b.successful - b.failed] }))}
            series={[{ name: 'successful', color: COLORS.successful }, { name: 'failed', color: COLORS.failed }, { name: 'other', color: COLORS.other }]}
            summary={`Job trends: ${total} jobs finished, ${successful} successful, ${failed} failed, over ${buckets.length} ${granularity === 'day' ? 'days' : `${granularity}s`}`}
            axis="Jobs"
          />
          <FigureTable
            caption="Job trends"
            shown={shown}
            columns={[BUCKET[granularity], 'Jobs', 'Successful', 'Failed', 'Average duration (s)']}
            rows={buckets.map((b) => [b.date, b.job_count, b.successful, b.failed, figure(b.avg_duration)])}
          />
        </>
      )}
    </ChartCard>
  );
}

/** The percentage of successful jobs per bucket, with the jobs by final status in the table. */
export function SuccessRateCard({ period, granularity }: { period: string; granularity: Granularity }) {
  const q = useAnalytics('success_rate', { period, granularity });
  const buckets = q.data ?? [];
  const total = buckets.reduce((sum, b) => sum + b.total, 0);
  const successful = buckets.reduce((sum, b) => sum + b.successful, 0);
  const overall = total ? Math.round((successful / total) * 10_000) / 100 : null;
  return (
    <ChartCard title="Success rate" error={q.error} pending={q.isPending} empty={total === 0}>
      {(shown) => (
        <>
          <TimeBars
            steps={buckets.map((b) => ({ date: b.date, values: [b.success_rate ?? 0] }))}
            series={[{ name: 'successful', color: COLORS.successful }]}
            summary={`Success rate: ${figure(overall, '%')} of ${total} jobs successful in the period`}
            axis="Successful"
            percent
          />
          <FigureTable
            caption="Success rate"
            shown={shown}
            columns={[BUCKET[granularity], 'Jobs', 'Successful', 'Failed', 'Error', 'Canceled', 'Success rate']}
            rows={buckets.map((b) => [b.date, b.total, b.successful, b.failed, b.error, b.canceled, figure(b.success_rate, '%')])}
          />
        </>
      )}
    </ChartCard>
  );
}
