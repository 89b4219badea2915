import { FormGroup, FormSelect, FormSelectOption, Grid, GridItem, TextInput } from '@patternfly/react-core';
import { useFilterParam } from '../../hooks/use-filter-param';
import { useOptions } from '../../hooks/api-hooks';
import { ReferenceSelect } from '../../components/ReferenceSelect';

/** Above the scan results: status, scanner, run and since, kept in the list's query like every other filter. */
export default function ScanResultFilters() {
  const [params, set] = useFilterParam();
  const options = useOptions('/api/v2/scan_results/');
  const statuses = options.data?.actions?.GET?.status?.choices ?? [];
  const scanner = params.get('scanner');
  return (
    <Grid hasGutter md={6} xl={3} style={{ marginBottom: '0.5rem' }}>
      <GridItem>
        <FormGroup label="Status" fieldId="scan-filter-status">
          <FormSelect id="scan-filter-status" value={params.get('status') ?? ''} onChange={(_e, v) => set('status', v)}>
            <FormSelectOption value="" label="Any" />
            {statuses.map(([value, label]) => <FormSelectOption key={String(value)} value={String(value)} label={label} />)}
          </FormSelect>
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Scanner" fieldId="scan-filter-scanner">
          <ReferenceSelect id="scan-filter-scanner" label="Scanner" listUrl="/api/v2/scanners/" value={scanner && /^\d+$/.test(scanner) ? Number(scanner) : null} onChange={(id) => set('scanner', id)} />
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Run id" fieldId="scan-filter-job">
          <TextInput id="scan-filter-job" type="number" value={params.get('unified_job') ?? ''} onChange={(_e, v) => set('unified_job', v)} />
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Since" fieldId="scan-filter-since">
          <TextInput id="scan-filter-since" type="date" value={params.get('since') ?? ''} onChange={(_e, v) => set('since', v)} />
        </FormGroup>
      </GridItem>
    </Grid>
  );
}
