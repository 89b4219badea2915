import { FormGroup, FormSelect, FormSelectOption, Grid, GridItem, TextInput } from '@patternfly/react-core';
import { useFilterParam } from '../../hooks/use-filter-param';
import { ReferenceSelect } from '../../components/ReferenceSelect';

/** Above the decisions log: decision, policy, run and since, kept in the list's query like every other filter. */
export default function DecisionFilters() {
  const [params, set] = useFilterParam();
  const policy = params.get('policy');
  return (
    <Grid hasGutter md={6} xl={3} style={{ marginBottom: '0.5rem' }}>
      <GridItem>
        <FormGroup label="Decision" fieldId="decision-filter-decision">
          <FormSelect id="decision-filter-decision" value={params.get('decision') ?? ''} onChange={(_e, v) => set('decision', v)}>
            <FormSelectOption value="" label="Any" />
            <FormSelectOption value="deny" label="deny" />
            <FormSelectOption value="warn" label="warn" />
          </FormSelect>
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Policy" fieldId="decision-filter-policy">
          <ReferenceSelect id="decision-filter-policy" label="Policy" listUrl="/api/v2/policies/" value={policy && /^\d+$/.test(policy) ? Number(policy) : null} onChange={(id) => set('policy', id)} />
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Run id" fieldId="decision-filter-job">
          <TextInput id="decision-filter-job" type="number" value={params.get('unified_job') ?? ''} onChange={(_e, v) => set('unified_job', v)} />
        </FormGroup>
      </GridItem>
      <GridItem>
        <FormGroup label="Since" fieldId="decision-filter-since">
          <TextInput id="decision-filter-since" type="date" value={params.get('since') ?? ''} onChange={(_e, v) => set('since', v)} />
        </FormGroup>
      </GridItem>
    </Grid>
  );
}
