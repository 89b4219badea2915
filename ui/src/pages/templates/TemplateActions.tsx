import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Button, Tooltip } from '@patternfly/react-core';
import { RocketIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { runPath } from '../../resources/run-paths';
import { initialAnswer, type SurveySpec } from './survey/survey-types';
import { initialValues, launchedRun, needsInput, type LaunchableTemplate, type LaunchDescription, type LaunchValues, type PromptingTemplate } from './launch/launch-plan';
import { LaunchWizard } from './launch/LaunchWizard';
import { DaysPrompt, takesDays } from './launch/DaysPrompt';
import { refusedByScanner, ScannerRefusalModal } from './launch/ScannerRefusal';

interface WizardState {
  description: LaunchDescription;
  spec: SurveySpec['spec'];
  initial: LaunchValues;
}

/** Launch of a job, workflow or system job template: straight away when nothing is asked, else through the wizard. */
export default function TemplateActions({ object, variant }: { object: LaunchableTemplate; variant: 'row' | 'detail' }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [wizard, setWizard] = useState<WizardState | null>(null);
  const [askingDays, setAskingDays] = useState(false);
  if (!object.summary_fields?.user_capabilities?.start) return null;
  const name = String(object.name ?? `#${object.id}`);

  const launched = async (answer: Record<string, unknown>) => {
    const run = launchedRun(answer);
    await queryClient.invalidateQueries();
    if (run) navigate(runPath(run));
  };

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      if (object.type === 'system_job_template') {
        if (takesDays(object as ResourceObject<'system_job_templates'>)) setAskingDays(true);
        else await launched(await http.post(`${object.url}launch/`, {}));
        return;
      }
      const description = await http.get<LaunchDescription>(`${object.url}launch/`);
      if (!needsInput(description)) {
        await launched(await http.post(`${object.url}launch/`, {}));
        return;
      }
      const spec = description.survey_enabled ? ((await http.get<SurveySpec>(`${object.url}survey_spec/`)).spec ?? []) : [];
      const answers = Object.fromEntries(spec.map((q) => [q.variable, initialAnswer(q)]));
      setWizard({ description, spec, initial: initialValues(description, answers) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Tooltip content={`Launch ${name}`}>
        <Button
          variant={variant === 'detail' ? 'primary' : 'plain'}
          aria-label={`Launch ${name}`}
          icon={<RocketIcon />}
          onClick={start}
          isLoading={busy && variant === 'detail'}
          isDisabled={busy}
        >
          {variant === 'detail' ? 'Launch' : null}
        </Button>
      </Tooltip>
      {error && refusedByScanner(error) ? <ScannerRefusalModal name={name} error={error} onClose={() => setError(null)} /> : null}
      {error && !refusedByScanner(error) ? <ErrorAlert error={error} title="Not launched" /> : null}
      {wizard && (
        <LaunchWizard
          template={object as PromptingTemplate}
          description={wizard.description}
          spec={wizard.spec}
          initial={wizard.initial}
          onClose={() => setWizard(null)}
          onLaunched={launched}
        />
      )}
      {askingDays && <DaysPrompt template={object as ResourceObject<'system_job_templates'>} onClose={() => setAskingDays(false)} onLaunched={launched} />}
    </>
  );
}
