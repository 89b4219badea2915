import { FormGroup, FormHelperText, FormSelect, FormSelectOption, Grid, GridItem, HelperText, HelperTextItem } from '@patternfly/react-core';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { SCHEDULABLE } from './schedule-template';

/** Picks the template a new schedule launches: its kind, then one of that kind. */
export function TemplatePicker({ kind, id, onChange, error }: { kind: string; id: number | null; onChange: (kind: string, id: number | null) => void; error?: string }) {
  const list = SCHEDULABLE.find(([k]) => k === kind)?.[2] ?? 'job_templates';
  return (
    <Grid hasGutter>
      <GridItem span={12} md={4}>
        <FormGroup label="Template type" fieldId="schedule-template-kind">
          <FormSelect id="schedule-template-kind" value={kind} onChange={(_e, v) => onChange(v, null)}>
            {SCHEDULABLE.map(([k, label]) => <FormSelectOption key={k} value={k} label={label} />)}
          </FormSelect>
        </FormGroup>
      </GridItem>
      <GridItem span={12} md={8}>
        <FormGroup label="Template" fieldId="schedule-template" isRequired>
          <ReferenceSelect key={kind} id="schedule-template" label="Template" listUrl={`/api/v2/${list}/`} value={id} onChange={(v) => onChange(kind, v)} validated={error ? 'error' : 'default'} />
          <FormHelperText>
            <HelperText>
              <HelperTextItem variant={error ? 'error' : 'default'}>{error ?? 'What the schedule launches.'}</HelperTextItem>
            </HelperText>
          </FormHelperText>
        </FormGroup>
      </GridItem>
    </Grid>
  );
}
