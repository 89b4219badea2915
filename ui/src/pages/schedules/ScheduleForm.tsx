import { useMemo, useState, type FormEvent } from 'react';
import { fieldHelp } from '../../components/field-help';
import { useNavigate, useSearchParams } from 'react-router';
import {
  ActionGroup, Button, Checkbox, Form, FormGroup, FormSelect, FormSelectOption, Grid, GridItem, Switch, TextArea, TextInput, Title,
} from '@patternfly/react-core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { http, type Page } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { ApiBody, ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { useObject } from '../../hooks/api-hooks';
import type { ResourceConfig } from '../../resources/types';
import type { LaunchDescription } from '../templates/launch/launch-plan';
import { placeSurveyMessages, type SurveySpec, type SurveyQuestion } from '../templates/survey/survey-types';
import { initialPrompts, promptsBody } from './launch-config';
import { buildRrule, defaultRepeat, parseRepeat, type Repeat } from './rrule-builder';
import { RepeatBuilder } from './RepeatBuilder';
import { RunPreview } from './RunPreview';
import { SCHEDULE_PROMPTS, SchedulePrompts } from './SchedulePrompts';
import { askedLists, ScheduleRelated } from './ScheduleRelated';
import { loadChosen, NOTHING_CHOSEN, SyncError, syncChosen, type Chosen } from '../templates/form/related-lists';
import { syncMessage } from '../templates/form/sync-message';
import { scheduledTemplate, templateUrl, type SchedulableTemplate } from './schedule-template';
import { TemplatePicker } from './TemplatePicker';

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Add and edit of a schedule: its template, start, repeat (built or as rrule text) with the next runs, and the prompts its template asks. */
export default function ScheduleForm({ object }: { config: ResourceConfig; object?: ResourceObject<'schedules'> }) {
  const [query] = useSearchParams();
  const named = useMemo(() => scheduledTemplate(object, query), [object, query]);
  const unified = useQuery({
    queryKey: ['/api/v2/unified_job_templates/', named?.id],
    queryFn: async () => (await http.get<Page<ResourceObject<'unified_job_templates'>>>(`/api/v2/unified_job_templates/?id=${named!.id}`)).results[0] ?? null,
    enabled: named?.kind === 'unified_job_template',
  });
  const given = named?.kind === 'unified_job_template' ? (unified.data ? { kind: unified.data.type, id: unified.data.id } : null) : named;
  const [picked, setPicked] = useState<{ kind: string; id: number | null }>({ kind: 'job_template', id: null });
  const target = given ?? (picked.id ? { kind: picked.kind, id: picked.id } : null);
  const template = useObject<SchedulableTemplate>(target ? templateUrl(target.kind, target.id) : undefined);
  const prompting = target?.kind === 'job_template' || target?.kind === 'workflow_job_template';
  const launch = useQuery({
    queryKey: [`${template.data?.url}launch/`],
    queryFn: () => http.get<LaunchDescription>(`${template.data!.url}launch/`),
    enabled: !!template.data && prompting,
    retry: false,
  });
  // What the schedule saves in its related lists, loaded before its form.
  const related = useQuery({ queryKey: [object?.url, 'related lists'], queryFn: () => loadChosen(object!.related, ['credentials', 'labels', 'instance_groups']), enabled: !!object, gcTime: 0 });
  const surveyUrl = template.data && prompting && template.data.survey_enabled ? `${template.data.url}survey_spec/` : undefined;
  const survey = useQuery({ queryKey: [surveyUrl], queryFn: () => http.get<Partial<SurveySpec>>(surveyUrl!), enabled: !!surveyUrl });
  const zones = useQuery({
    queryKey: ['/api/v2/schedules/zoneinfo/'],
    queryFn: async () => {
      const answer = await http.get<{ zones?: (string | { name: string })[] } | { name: string }[]>('/api/v2/schedules/zoneinfo/');
      const list = Array.isArray(answer) ? answer : answer.zones ?? [];
      return list.map((z) => (typeof z === 'string' ? z : z.name));
    },
    staleTime: Infinity,
  });

  // A picked template loads under the form, which keeps what was typed; a given one loads first.
  if (unified.isLoading || related.isLoading) return <Loading />;
  if (zones.isPending || (given && (template.isPending || launch.isLoading || survey.isLoading))) return <Loading />;
  const problem = zones.error ?? template.error ?? survey.error ?? related.error;
  if (problem) return <ErrorAlert error={problem} />;
  return (
    <ScheduleFormBody
      object={object}
      fixedTemplate={!!given}
      target={target}
      onPick={(kind, id) => setPicked({ kind, id })}
      template={template.data}
      description={prompting ? launch.data ?? null : null}
      spec={survey.data?.spec ?? []}
      zones={zones.data ?? ['UTC']}
      loaded={related.data ?? NOTHING_CHOSEN}
    />
  );
}

interface BodyProps {
  object?: ResourceObject<'schedules'>;
  fixedTemplate: boolean;
  target: { kind: string; id: number } | null;
  onPick: (kind: string, id: number | null) => void;
  template?: SchedulableTemplate;
  description: LaunchDescription | null;
  spec: SurveyQuestion[];
  zones: string[];
  loaded: Chosen;
}

function ScheduleFormBody({ object, fixedTemplate, target, onPick, template, description, spec, zones, loaded }: BodyProps) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const stored = typeof object?.rrule === 'string' ? object.rrule : '';
  const [name, setName] = useState(String(object?.name ?? ''));
  const [descriptionText, setDescriptionText] = useState(String(object?.description ?? ''));
  const [enabled, setEnabled] = useState(object ? !!object.enabled : true);
  const [repeat, setRepeat] = useState<Repeat>(() => (stored && parseRepeat(stored)) || defaultRepeat(new Date(), zones.includes(browserZone()) ? browserZone() : 'UTC'));
  const [advanced, setAdvanced] = useState(!!stored && !parseRepeat(stored));
  const [rruleText, setRruleText] = useState(stored || buildRrule(repeat));
  const [prompts, setPrompts] = useState(() => initialPrompts(object, spec));
  const questions = spec.map((q) => q.variable).join(',');
  const [promptsFor, setPromptsFor] = useState(`${target?.id}:${questions}`);
  if (promptsFor !== `${target?.id}:${questions}`) {
    // Another template (or its survey, once loaded): its own prompts start afresh.
    setPromptsFor(`${target?.id}:${questions}`);
    setPrompts(initialPrompts(object, spec));
  }
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const lists = askedLists(description);
  const [chosen, setChosen] = useState<Chosen>(loaded);
  const [baseline, setBaseline] = useState<Chosen>(loaded);
  // A schedule created by a save whose related lists were then refused: later saves change it.
  const [saved, setSaved] = useState(object);
  const organization = template && 'organization' in template && typeof template.organization === 'number' ? template.organization : null;
  const rrule = advanced ? rruleText : buildRrule(repeat);
  const takesDays = target?.kind === 'system_job_template' && (template?.job_type === 'cleanup_jobs' || template?.job_type === 'cleanup_activitystream');

  const switchMode = (toAdvanced: boolean) => {
    if (toAdvanced) setRruleText(buildRrule(repeat));
    else {
      const parsed = parseRepeat(rruleText);
      if (!parsed) {
        setErrors((e) => ({ ...e, rrule: 'The builder cannot show this rule; edit it as text or start the builder afresh.' }));
        return;
      }
      setRepeat(parsed);
    }
    setAdvanced(toAdvanced);
  };

  const body = (): Record<string, unknown> | null => {
    const problems: Record<string, string> = {};
    if (!name.trim()) problems.name = 'A name is required.';
    if (!target) problems.unified_job_template = 'Pick the template to launch.';
    if (!advanced && repeat.frequency === 'week' && !repeat.weekdays.length) problems.rrule = 'Pick at least one day of the week.';
    if (!advanced && repeat.ends === 'on' && !repeat.until) problems.rrule = 'Pick the last day.';
    const prompted = promptsBody(description, spec, prompts, takesDays);
    Object.assign(problems, prompted.problems);
    setErrors(problems);
    if (Object.keys(problems).length) return null;
    const { extra, fields: asked } = prompted;
    return { name: name.trim(), description: descriptionText, enabled, rrule, unified_job_template: target!.id, extra_data: extra, ...asked } satisfies ApiBody<'/api/v2/schedules/', 'post'>;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const payload = body();
    if (!payload) return;
    setSaving(true);
    setFailure(null);
    let schedule = saved;
    try {
      schedule = saved ? await http.put<ResourceObject<'schedules'>>(saved.url, payload) : await http.post<ResourceObject<'schedules'>>('/api/v2/schedules/', payload);
      setSaved(schedule);
      await syncChosen(schedule.related, lists, baseline, chosen, organization);
      await queryClient.invalidateQueries();
      navigate(`/schedules/${schedule.id}`);
    } catch (err) {
      if (err instanceof SyncError) {
        setErrors({ [err.list]: syncMessage(err.list, err.cause) });
        if (schedule) setBaseline(await loadChosen(schedule.related, ['credentials', 'labels', 'instance_groups']));
      } else if (err instanceof ApiError && err.status === 400) {
        const placed: Record<string, string> = {};
        for (const [field, message] of Object.entries(err.fieldErrors)) {
          if (field === 'variables_needed_to_start') {
            const list = Array.isArray((err.body as Record<string, unknown>)[field]) ? ((err.body as Record<string, unknown>)[field] as unknown[]).map(String) : [message];
            const { placed: onQuestions, rest } = placeSurveyMessages(spec, list);
            for (const [v, text] of Object.entries(onQuestions)) placed[`survey.${v}`] = text;
            if (rest.length) placed[field] = rest.join(' ');
          } else placed[field] = message;
        }
        setErrors(placed);
        const known = new Set(['name', 'description', 'rrule', 'unified_job_template', 'extra_data', 'variables_needed_to_start', ...SCHEDULE_PROMPTS.map(([f]) => f)]);
        if (!Object.keys(placed).length || Object.keys(placed).some((k) => !known.has(k) && !k.startsWith('survey.'))) setFailure(err);
      } else setFailure(err);
    } finally {
      setSaving(false);
    }
  };


  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} schedule`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter>
        <GridItem span={12} md={6}>
          <FormGroup label="Name" fieldId="schedule-name" isRequired>
            <TextInput id="schedule-name" value={name} onChange={(_e, v) => setName(v)} validated={errors.name ? 'error' : 'default'} aria-describedby="schedule-name-help" />
            {fieldHelp('schedule-name', errors.name)}
          </FormGroup>
        </GridItem>
        <GridItem span={12} md={6}>
          <FormGroup label="Description" fieldId="schedule-description">
            <TextArea id="schedule-description" value={descriptionText} onChange={(_e, v) => setDescriptionText(v)} rows={1} resizeOrientation="vertical" />
            {fieldHelp('schedule-description', errors.description)}
          </FormGroup>
        </GridItem>
        <GridItem span={12}>
          {fixedTemplate ? (
            <FormGroup label="Template" fieldId="schedule-template">
              <TextInput id="schedule-template" value={String(template?.name ?? `#${target?.id}`)} readOnlyVariant="default" />
              {fieldHelp('schedule-template', errors.unified_job_template)}
            </FormGroup>
          ) : (
            <TemplatePicker kind={target?.kind ?? 'job_template'} id={target?.id ?? null} onChange={onPick} error={errors.unified_job_template} />
          )}
        </GridItem>
        <GridItem span={12}>
          <Switch id="schedule-enabled" label="Enabled" isChecked={enabled} onChange={(_e, on) => setEnabled(on)} />
        </GridItem>
      </Grid>

      <Title headingLevel="h2" size="lg">When</Title>
      <Checkbox id="schedule-advanced" label="Edit the rule as text (advanced)" isChecked={advanced} onChange={(_e, on) => switchMode(on)} />
      <Grid hasGutter>
        <GridItem span={12} lg={7}>
          {advanced ? (
            <FormGroup label="Recurrence rule" fieldId="schedule-rrule" isRequired>
              <TextArea id="schedule-rrule" className="drover-mono" value={rruleText} onChange={(_e, v) => setRruleText(v)} validated={errors.rrule ? 'error' : 'default'} resizeOrientation="vertical" aria-describedby="schedule-rrule-help" />
              {fieldHelp('schedule-rrule', errors.rrule, 'DTSTART;TZID=<zone>:YYYYMMDDTHHMMSS RRULE:FREQ=…;INTERVAL=…')}
            </FormGroup>
          ) : (
            <Grid hasGutter>
              <GridItem span={12} md={4}>
                <FormGroup label="Start date" fieldId="schedule-date" isRequired>
                  <TextInput id="schedule-date" type="date" value={repeat.date} onChange={(_e, v) => setRepeat({ ...repeat, date: v })} />
                </FormGroup>
              </GridItem>
              <GridItem span={12} md={4}>
                <FormGroup label="Start time" fieldId="schedule-time" isRequired>
                  <TextInput id="schedule-time" type="time" value={repeat.time} onChange={(_e, v) => setRepeat({ ...repeat, time: v })} />
                </FormGroup>
              </GridItem>
              <GridItem span={12} md={4}>
                <FormGroup label="Time zone" fieldId="schedule-timezone" isRequired>
                  <FormSelect id="schedule-timezone" value={repeat.timezone} onChange={(_e, v) => setRepeat({ ...repeat, timezone: v })}>
                    {zones.map((z) => <FormSelectOption key={z} value={z} label={z} />)}
                  </FormSelect>
                </FormGroup>
              </GridItem>
              <GridItem span={12}>
                <RepeatBuilder repeat={repeat} onChange={setRepeat} />
                {errors.rrule && fieldHelp('schedule-rrule', errors.rrule)}
              </GridItem>
              <GridItem span={12}>
                <FormGroup label="Rule" fieldId="schedule-rule-text">
                  <code id="schedule-rule-text" className="drover-mono" data-testid="schedule-rrule" style={{ overflowWrap: 'anywhere' }}>{rrule}</code>
                </FormGroup>
              </GridItem>
            </Grid>
          )}
        </GridItem>
        <GridItem span={12} lg={5}>
          <RunPreview rrule={rrule} timezone={advanced ? (/TZID=([^:\s]+)/.exec(rruleText)?.[1] ?? 'UTC') : repeat.timezone} />
        </GridItem>
      </Grid>

      <ScheduleRelated lists={lists} chosen={chosen} onChange={setChosen} organization={organization} errors={errors} />
      <SchedulePrompts templateUrl={template?.url ? String(template.url) : undefined} description={description} spec={spec} takesDays={takesDays} values={prompts} onChange={setPrompts} errors={errors} />

      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
