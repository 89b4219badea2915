import { useState } from 'react';
import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, TextInput } from '@patternfly/react-core';
import { useDebounced } from '../../hooks/use-debounced';
import { ChartCard } from './ChartCard';
import { COLORS, RowBars } from './charts';
import { FigureTable } from './FigureTable';
import { useAnalytics } from './use-analytics';

/**
 * Time saved: the successful jobs' run time against the same work done by hand, `manual_multiplier`
 * times as long (docs/analytics.md#time_savings). The multiplier is asked again once typing stops;
 * the API's 400 names what it takes.
 */
export function TimeSavingsCard({ period }: { period: string }) {
  const [multiplier, setMultiplier] = useState('10');
  const settled = useDebounced(multiplier.trim(), 400);
  const q = useAnalytics('time_savings', settled ? { period, manual_multiplier: settled } : { period });
  const s = q.data;
  const input = (
    <label className="drover-nowrap" style={{ display: 'flex', gap: '0.5rem', alignItems: 'center' }}>
      Manual multiplier
      <TextInput type="number" min={0} max={1000} step="any" aria-label="Manual multiplier" value={multiplier} onChange={(_e, v) => setMultiplier(v)} style={{ width: '7rem' }} />
    </label>
  );
  const figures: [string, string][] = s ? [
    ['Successful jobs', String(s.successful_jobs)],
    ['Automation hours', String(s.automation_hours)],
    ['Manual hours', String(s.manual_hours)],
    ['Hours saved', String(s.saved_hours)],
    ['Average automation minutes', String(s.avg_automation_minutes)],
    ['Average minutes saved', String(s.avg_saved_minutes)],
    ['Hours saved per day', String(s.saved_hours_per_day)],
  ] : [];
  return (
    <ChartCard title="Time saved" controls={input} error={q.error} pending={q.isPending && !q.error} empty={false}>
      {(shown) => s && (
        <>
          <DescriptionList isHorizontal isCompact columnModifier={{ default: '2Col' }} aria-label="Time saved figures">
            {figures.slice(0, 4).map(([term, value]) => (
              <DescriptionListGroup key={term}>
                <DescriptionListTerm>{term}</DescriptionListTerm>
                <DescriptionListDescription>{value}</DescriptionListDescription>
              </DescriptionListGroup>
            ))}
          </DescriptionList>
          {s.successful_jobs === 0 ? <p data-empty>No successful jobs in this period.</p> : (
            <div style={{ maxWidth: '40rem' }}>
              <RowBars
                rows={[{ label: 'Automation hours', value: s.automation_hours }, { label: 'Manual hours', value: s.manual_hours }]}
                color={COLORS.successful}
                summary={`Time saved: ${s.saved_hours} hours, ${s.automation_hours} hours of automation instead of ${s.manual_hours} by hand (× ${s.manual_multiplier})`}
              />
            </div>
          )}
          <FigureTable caption="Time saved" shown={shown} columns={['Figure', 'Value']} rows={figures} />
        </>
      )}
    </ChartCard>
  );
}
