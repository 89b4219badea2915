import { useState } from 'react';
import {
  Alert,
  Button,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Form,
  Modal,
  Wizard,
  WizardFooterWrapper,
  WizardHeader,
  WizardStep,
  useWizardContext,
} from '@patternfly/react-core';
import { http } from '../../../api/client';
import { ApiError } from '../../../api/errors';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { parseVariables } from '../../../components/VariablesEditor';
import { placeSurveyMessages, surveyProblems, type SurveyQuestion } from '../survey/survey-types';
import { SurveyFields } from '../survey/SurveyFields';
import { useDynamicChoices } from '../survey/use-dynamic-choices';
import { launchBody, launchSteps, passwordsNeeded, STEP_NAMES, stepOfField, type LaunchDescription, type LaunchValues, type PromptingTemplate, type StepId } from './launch-plan';
import { CredentialsStep, ExecutionEnvironmentStep, InstanceGroupsStep, InventoryStep, OtherPromptsStep, type StepProps } from './LaunchSteps';

const parse = (text: string) => {
  const parsed = parseVariables(text, 'yaml');
  return parsed.problem ? undefined : (parsed.value as Record<string, unknown>);
};

/** Messages by field; survey answers as survey.<variable>, credential passwords as password.<name>. */
type Errors = Record<string, string>;

function stepProblems(step: StepId, d: LaunchDescription, values: LaunchValues, spec: SurveyQuestion[]): Errors {
  if (step === 'survey') return Object.fromEntries(Object.entries(surveyProblems(spec, values.survey)).map(([k, v]) => [`survey.${k}`, v]));
  if (step === 'credentials') {
    return Object.fromEntries(passwordsNeeded(d, values).filter((n) => !values.passwords[n]).map((n) => [`password.${n}`, 'This password is required.']));
  }
  if (step === 'other' && values.extra_vars_invalid) return { extra_vars: 'Fix the syntax first.' };
  return {};
}

const stepOfError = (key: string): StepId => (key.startsWith('survey.') ? 'survey' : key.startsWith('password.') ? 'credentials' : stepOfField(key));

/** The launch wizard: one step per prompt group the template asks, its survey, then a preview. */
export function LaunchWizard({ template, description, spec, initial, onClose, onLaunched }: {
  template: PromptingTemplate;
  description: LaunchDescription;
  spec: SurveyQuestion[];
  initial: LaunchValues;
  onClose: () => void;
  onLaunched: (answer: Record<string, unknown>) => void;
}) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [launching, setLaunching] = useState(false);
  const steps = launchSteps(description);
  const dynamicChoices = useDynamicChoices(String(template.url), spec);
  const set = (field: string, value: unknown) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => {
      const { [field]: _gone, ...rest } = e;
      return rest;
    });
  };
  const setAnswer = (variable: string, value: unknown) => {
    setValues((v) => ({ ...v, survey: { ...v.survey, [variable]: value } }));
    setErrors((e) => {
      const { [`survey.${variable}`]: _gone, ...rest } = e;
      return rest;
    });
  };

  /** Checks a step; answers whether it may be left forward. */
  const check = (step: StepId): boolean => {
    const problems = stepProblems(step, description, values, spec);
    setErrors((e) => ({ ...Object.fromEntries(Object.entries(e).filter(([k]) => stepOfError(k) !== step)), ...problems }));
    return Object.keys(problems).length === 0;
  };

  /** Launches; answers the step to show when something is refused. */
  const launch = async (): Promise<StepId | null> => {
    for (const step of steps) if (!check(step)) return step;
    setLaunching(true);
    setFailure(null);
    try {
      const answer = await http.post<Record<string, unknown>>(`${template.url}launch/`, launchBody(description, values, spec, parse));
      onLaunched(answer);
      return null;
    } catch (err) {
      const placed = placeApiErrors(err, spec);
      setErrors(placed.errors);
      const elsewhere = Object.keys(placed.errors).some((k) => !steps.includes(stepOfError(k)));
      if (placed.unplaced || elsewhere) setFailure(err);
      const first = steps.find((s) => Object.keys(placed.errors).some((k) => stepOfError(k) === s));
      return first ?? 'preview';
    } finally {
      setLaunching(false);
    }
  };

  const props: StepProps = { description, values, set, errors };
  const statusOf = (step: StepId) => (Object.keys(errors).some((k) => stepOfError(k) === step) ? 'error' : 'default');
  const surveyErrors = Object.fromEntries(Object.entries(errors).filter(([k]) => k.startsWith('survey.')).map(([k, v]) => [k.slice('survey.'.length), v]));
  const title = `Launch ${String(template.name ?? '')}`;

  return (
    <Modal isOpen variant="large" onEscapePress={onClose} aria-label={title}>
      <Wizard
        height={560}
        header={<WizardHeader title={title} onClose={onClose} closeButtonAriaLabel="Close the launch wizard" />}
        onClose={onClose}
        isVisitRequired
        navAriaLabel="Launch steps"
        footer={<LaunchFooter check={check} launch={launch} launching={launching} />}
      >
        {steps.map((step) => (
          <WizardStep key={step} id={step} name={STEP_NAMES[step]} status={statusOf(step)}>
            {step === 'inventory' && <InventoryStep {...props} />}
            {step === 'credentials' && <CredentialsStep {...props} />}
            {step === 'execution_environment' && <ExecutionEnvironmentStep {...props} />}
            {step === 'instance_groups' && <InstanceGroupsStep {...props} />}
            {step === 'other' && <OtherPromptsStep {...props} />}
            {step === 'survey' && (
              <>
                {errors.variables_needed_to_start && <Alert variant="danger" isInline title={errors.variables_needed_to_start} />}
                <Form onSubmit={(e) => e.preventDefault()} aria-label="Survey">
                  <SurveyFields spec={spec} answers={values.survey} onChange={setAnswer} errors={surveyErrors} dynamic={dynamicChoices} />
                </Form>
              </>
            )}
            {step === 'preview' && <Preview body={launchBody(description, values, spec, parse)} spec={spec} failure={failure} />}
          </WizardStep>
        ))}
      </Wizard>
    </Modal>
  );
}

/** The API's 400 messages by the wizard's keys; whether some belong to no field of the wizard. */
function placeApiErrors(err: unknown, spec: SurveyQuestion[]): { errors: Errors; unplaced: boolean } {
  if (!(err instanceof ApiError) || err.status !== 400) return { errors: {}, unplaced: true };
  const errors: Errors = {};
  let unplaced = Object.keys(err.fieldErrors).length === 0;
  const body = err.body as Record<string, unknown>;
  for (const [field, message] of Object.entries(err.fieldErrors)) {
    if (field === 'variables_needed_to_start') {
      const list = Array.isArray(body[field]) ? (body[field] as unknown[]).map(String) : [message];
      const { placed, rest } = placeSurveyMessages(spec, list);
      for (const [variable, text] of Object.entries(placed)) errors[`survey.${variable}`] = text;
      if (rest.length) errors[field] = rest.join(' ');
      continue;
    }
    if (field === 'passwords_needed_to_start') {
      const names = Array.isArray(body[field]) ? (body[field] as unknown[]).map(String) : [];
      for (const name of names) errors[`password.${name}`] = 'This password is required.';
    }
    errors[field] = message;
    if (stepOfField(field) === 'preview') unplaced = true;
  }
  return { errors, unplaced };
}

function LaunchFooter({ check, launch, launching }: { check: (step: StepId) => boolean; launch: () => Promise<StepId | null>; launching: boolean }) {
  const { activeStep, steps, goToNextStep, goToPrevStep, goToStepById, close } = useWizardContext();
  const isLast = activeStep.index === steps.length;
  const next = async () => {
    if (!isLast) {
      if (check(activeStep.id as StepId)) await goToNextStep();
      return;
    }
    const refused = await launch();
    if (refused && refused !== activeStep.id) goToStepById(refused);
  };
  return (
    <WizardFooterWrapper>
      <Button variant="primary" onClick={next} isLoading={launching} isDisabled={launching}>
        {isLast ? 'Launch' : 'Next'}
      </Button>
      <Button variant="secondary" onClick={goToPrevStep} isDisabled={activeStep.index === 1}>
        Back
      </Button>
      <Button variant="link" onClick={close}>
        Cancel
      </Button>
    </WizardFooterWrapper>
  );
}

const HIDDEN = '••••••';

function Preview({ body, spec, failure }: { body: Record<string, unknown>; spec: SurveyQuestion[]; failure: unknown }) {
  const secret = new Set(spec.filter((q) => q.type === 'password').map((q) => q.variable));
  const shown = Object.entries(body).map(([key, value]): [string, string] => {
    if (key === 'credential_passwords') return [key, Object.keys(value as object).map((k) => `${k}: ${HIDDEN}`).join(', ')];
    if (key === 'extra_vars') {
      const masked = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, secret.has(k) ? HIDDEN : v]));
      return [key, JSON.stringify(masked, null, 2)];
    }
    return [key, value === null || value === undefined || value === '' ? '–' : typeof value === 'object' ? JSON.stringify(value) : String(value)];
  });
  return (
    <>
      <ErrorAlert error={failure} title="Not launched" />
      {shown.length === 0 ? (
        <p>The run uses the template’s settings.</p>
      ) : (
        <DescriptionList isHorizontal isCompact aria-label="What the launch sends">
          {shown.map(([key, text]) => (
            <DescriptionListGroup key={key}>
              <DescriptionListTerm>{key}</DescriptionListTerm>
              <DescriptionListDescription>
                <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{text}</pre>
              </DescriptionListDescription>
            </DescriptionListGroup>
          ))}
        </DescriptionList>
      )}
    </>
  );
}
