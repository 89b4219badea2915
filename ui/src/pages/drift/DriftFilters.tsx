import { useFilterParam } from '../../hooks/use-filter-param';
import { FormGroup, FormSelect, FormSelectOption, Grid, GridItem } from '@patternfly/react-core';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { enumKeys } from '../../api/enums';
import { SEVERITIES } from './drift-api';
import { CATEGORY_NAMES } from './DriftLabels';

/**
 * The drift list's own filters. They are the list's query parameters, so the list, its filter chips
 * and the export all read the same values.
 */
export function DriftFilters() {
  const [params, set] = useFilterParam();
  const idOf = (name: string) => (params.get(name) && /^\d+$/.test(params.get(name)!) ? Number(params.get(name)) : null);
  const inventory = idOf('inventory');
  return (
    <Grid hasGutter md={6} xl={2} style={{ marginBottom: '0.5rem' }}>
      <GridItem>
        <Choice id="drift-filter-severity" label="Severity" value={params.get('severity')} options={SEVERITIES.map((s) => [s, s])} onChange={(v) => set('severity', v)} />
      </GridItem>
      <GridItem>
        <Choice id="drift-filter-category" label="Category" value={params.get('category')} options={enumKeys(CATEGORY_NAMES).map((c) => [c, CATEGORY_NAMES[c]])} onChange={(v) => set('category', v)} />
      </GridItem>
      <GridItem>
        <Choice id="drift-filter-acknowledged" label="Acknowledged" value={params.get('acknowledged')} options={[['false', 'Not yet'], ['true', 'Acknowledged']]} onChange={(v) => set('acknowledged', v)} />
      </GridItem>
      <GridItem xl={3}>
        <FormGroup label="Inventory" fieldId="drift-filter-inventory">
          <ReferenceSelect id="drift-filter-inventory" label="Inventory" listUrl="/api/v2/inventories/" value={inventory} onChange={(id) => set('inventory', id)} />
        </FormGroup>
      </GridItem>
      <GridItem xl={3}>
        <FormGroup label="Host" fieldId="drift-filter-host">
          <ReferenceSelect id="drift-filter-host" label="Host" listUrl="/api/v2/hosts/" value={idOf('host')} onChange={(id) => set('host', id)} query={inventory ? { inventory } : {}} />
        </FormGroup>
      </GridItem>
    </Grid>
  );
}

function Choice({ id, label, value, options, onChange }: { id: string; label: string; value: string | null; options: [string, string][]; onChange: (value: string) => void }) {
  return (
    <FormGroup label={label} fieldId={id}>
      <FormSelect id={id} value={value ?? ''} onChange={(_e, v) => onChange(v)}>
        <FormSelectOption value="" label="Any" />
        {options.map(([v, l]) => <FormSelectOption key={v} value={v} label={l} />)}
      </FormSelect>
    </FormGroup>
  );
}
