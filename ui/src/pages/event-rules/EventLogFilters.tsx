import { useFilterParam } from '../../hooks/use-filter-param';
import { FormGroup, FormSelect, FormSelectOption, Grid, GridItem } from '@patternfly/react-core';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { useOptions } from '../../hooks/api-hooks';

/**
 * Above the event log list: its status and rule filters, kept in the list's query parameters like every
 * other filter (so the chips and a shared link show them too).
 */
export default function EventLogFilters() {
  const [params, set] = useFilterParam();
  const options = useOptions('/api/v2/event_logs/');
  const statuses = options.data?.actions?.GET?.status?.choices ?? [];
  const rule = params.get('event_rule');
  return (
    <Grid hasGutter md={6} xl={3} style={{ marginBottom: '0.5rem' }}>
      <GridItem>
        <FormGroup label="Status" fieldId="event-log-filter-status">
          <FormSelect id="event-log-filter-status" value={params.get('status') ?? ''} onChange={(_e, v) => set('status', v)}>
            <FormSelectOption value="" label="Any" />
            {statuses.map(([value]) => <FormSelectOption key={String(value)} value={String(value)} label={String(value).replace(/_/g, ' ')} />)}
          </FormSelect>
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Rule" fieldId="event-log-filter-rule">
          <ReferenceSelect id="event-log-filter-rule" label="Rule" listUrl="/api/v2/event_rules/" value={rule && /^\d+$/.test(rule) ? Number(rule) : null} onChange={(id) => set('event_rule', id)} />
        </FormGroup>
      </GridItem>
    </Grid>
  );
}
