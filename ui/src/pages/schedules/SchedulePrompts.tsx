import { FormGroup, FormHelperText, Grid, GridItem, HelperText, HelperTextItem, TextInput, Title } from '@patternfly/react-core';
import { FieldInput } from '../../components/FieldInput';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { VariablesEditor } from '../../components/VariablesEditor';
import { PROMPT_META } from '../templates/launch/LaunchSteps';
import { OTHER_PROMPTS, asks, type LaunchDescription } from '../templates/launch/launch-plan';
import { SurveyFields } from '../templates/survey/SurveyFields';
import { useDynamicChoices } from '../templates/survey/use-dynamic-choices';
import type { SurveyQuestion } from '../templates/survey/survey-types';

/** Prompt fields a schedule saves, with the ask_*_on_launch flag of each. */
export const SCHEDULE_PROMPTS: [field: string, ask: string][] = [
  ['inventory', 'inventory'],
  ['execution_environment', 'execution_environment'],
  // Labels and extra variables are saved apart (a related list, extra_data).
  ...OTHER_PROMPTS.filter(([field]) => field !== 'labels' && field !== 'extra_vars'),
];

export interface PromptValues {
  fields: Record<string, unknown>;
  extraVars: string;
  extraVarsInvalid: boolean;
  survey: Record<string, unknown>;
  days: string;
}

/** What the schedule's runs are launched with where the template asks on launch: its prompts, survey answers, or the days a cleanup keeps. */
export function SchedulePrompts({ templateUrl, description, spec, takesDays, values, onChange, errors }: {
  /** The template's URL, to load the choices of dynamic survey questions from. */
  templateUrl?: string;
  description: LaunchDescription | null;
  spec: SurveyQuestion[];
  takesDays: boolean;
  values: PromptValues;
  onChange: (values: PromptValues) => void;
  errors: Record<string, string>;
}) {
  const asked = description ? SCHEDULE_PROMPTS.filter(([, flag]) => asks(description, flag)).map(([f]) => f) : [];
  const askVariables = !!description && asks(description, 'variables');
  const setField = (field: string, value: unknown) => onChange({ ...values, fields: { ...values.fields, [field]: value } });
  const dynamic = useDynamicChoices(templateUrl ?? '', templateUrl ? spec : []);
  if (!asked.length && !askVariables && !spec.length && !takesDays) return null;
  const surveyErrors = Object.fromEntries(Object.entries(errors).filter(([k]) => k.startsWith('survey.')).map(([k, v]) => [k.slice(7), v]));
  return (
    <section aria-label="Prompts">
      <Title headingLevel="h2" size="lg" style={{ margin: '1rem 0 0.5rem' }}>Prompts</Title>
      <Grid hasGutter>
        {asked.map((field) =>
          field === 'inventory' || field === 'execution_environment' ? (
            <GridItem key={field} span={12} md={6}>
              <FormGroup label={field === 'inventory' ? 'Inventory' : 'Execution environment'} fieldId={`prompt-${field}`}>
                <ReferenceSelect
                  id={`prompt-${field}`}
                  label={field === 'inventory' ? 'Inventory' : 'Execution environment'}
                  listUrl={field === 'inventory' ? '/api/v2/inventories/' : '/api/v2/execution_environments/'}
                  value={values.fields[field] as number | null}
                  onChange={(v) => setField(field, v)}
                  validated={errors[field] ? 'error' : 'default'}
                />
                <Helper error={errors[field]} hint="Empty: the template’s own." />
              </FormGroup>
            </GridItem>
          ) : (
            <GridItem key={field} span={12} md={6}>
              <FieldInput name={field} meta={{ ...PROMPT_META[field], required: false, allow_null: true }} value={values.fields[field]} onChange={(v) => setField(field, v)} error={errors[field]} />
            </GridItem>
          ),
        )}
        {askVariables && (
          <GridItem span={12}>
            <VariablesEditor
              id="prompt-extra-vars"
              label="Extra variables"
              value={values.extraVars}
              onChange={(text) => onChange({ ...values, extraVars: text ?? values.extraVars, extraVarsInvalid: text === undefined })}
              error={errors.extra_data}
            />
          </GridItem>
        )}
        {takesDays && (
          <GridItem span={12} md={6}>
            <FormGroup label="Days of data to keep" fieldId="prompt-days">
              <TextInput id="prompt-days" type="number" min={0} value={values.days} onChange={(_e, v) => onChange({ ...values, days: v })} validated={errors.extra_data ? 'error' : 'default'} />
              <Helper error={errors.extra_data} />
            </FormGroup>
          </GridItem>
        )}
      </Grid>
      {spec.length > 0 && (
        <>
          <Title headingLevel="h3" size="md" style={{ margin: '1rem 0 0.5rem' }}>Survey</Title>
          {errors.variables_needed_to_start && <Helper error={errors.variables_needed_to_start} />}
          <SurveyFields spec={spec} answers={values.survey} onChange={(variable, v) => onChange({ ...values, survey: { ...values.survey, [variable]: v } })} errors={surveyErrors} dynamic={dynamic} />
        </>
      )}
    </section>
  );
}

function Helper({ error, hint }: { error?: string; hint?: string }) {
  if (!error && !hint) return null;
  return (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={error ? 'error' : 'default'}>{error ?? hint}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );
}
