import { Checkbox, FormGroup, FormHelperText, FormSelect, FormSelectOption, Grid, GridItem, HelperText, HelperTextItem, TextArea, TextInput, Title } from '@patternfly/react-core';
import type { DynamicChoices } from './survey-types';

type SourceType = NonNullable<DynamicChoices['source_type']>;

export const SOURCE_TYPES: [SourceType, string][] = [['db_query', 'Objects of the service'], ['api_endpoint', 'HTTP endpoint'], ['jinja2', 'Jinja2 template']];
const MODELS = ['hosts', 'groups', 'projects', 'inventories', 'credentials', 'organizations', 'execution_environments', 'templates'];
const FIELDS = ['name', 'id', 'description'];

/** A question's dynamic_choices as the form edits it: numbers and objects as text. */
export interface DynamicDraft {
  enabled: boolean;
  source_type: SourceType;
  cache_ttl: string;
  model: string;
  field: string;
  filter: string;
  url: string;
  method: string;
  headers: string;
  body: string;
  json_path: string;
  value_field: string;
  timeout: string;
  template: string;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
const jsonText = (v: unknown) => (v && typeof v === 'object' && Object.keys(v).length ? JSON.stringify(v, null, 2) : '');

export function dynamicDraftOf(d?: DynamicChoices): DynamicDraft {
  return {
    enabled: d?.enabled === true,
    source_type: d?.source_type ?? 'db_query',
    cache_ttl: d?.cache_ttl === undefined ? '60' : String(d.cache_ttl),
    model: text(d?.model) || 'hosts',
    field: text(d?.field) || 'name',
    filter: jsonText(d?.filter),
    url: text(d?.url),
    method: text(d?.method) || 'GET',
    headers: jsonText(d?.headers),
    body: jsonText(d?.body),
    json_path: text(d?.json_path),
    value_field: text(d?.value_field),
    timeout: d?.timeout === undefined ? '10' : String(d.timeout),
    template: text(d?.template),
  };
}

/** An object given as JSON text (empty for none), or undefined when it is not one. */
function objectOf(source: string): Record<string, unknown> | null | undefined {
  if (!source.trim()) return null;
  try {
    const value: unknown = JSON.parse(source);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const WHOLE = /^\d+$/;

/** The form's problems by draft field (the API checks the rest and names the question). */
export function dynamicProblems(d: DynamicDraft): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!d.enabled) return problems;
  if (!WHOLE.test(d.cache_ttl)) problems.cache_ttl = 'Seconds, 0 or more.';
  if (d.source_type === 'db_query' && objectOf(d.filter) === undefined) problems.filter = 'A JSON object of lookups.';
  if (d.source_type === 'api_endpoint') {
    if (!/^https?:\/\/\S+$/.test(d.url.trim())) problems.url = 'An http or https URL.';
    if (objectOf(d.headers) === undefined) problems.headers = 'A JSON object of header names and values.';
    if (objectOf(d.body) === undefined) problems.body = 'A JSON object.';
    if (!WHOLE.test(d.timeout) || Number(d.timeout) < 1 || Number(d.timeout) > 60) problems.timeout = 'Seconds, from 1 to 60.';
  }
  if (d.source_type === 'jinja2' && !d.template.trim()) problems.template = 'A template that outputs a JSON list.';
  return problems;
}

/** The dynamic_choices a question stores, or undefined when its choices are static. */
export function dynamicChoicesOf(d: DynamicDraft): DynamicChoices | undefined {
  if (!d.enabled) return undefined;
  const common = { enabled: true, source_type: d.source_type, cache_ttl: Number(d.cache_ttl) };
  if (d.source_type === 'db_query') return { ...common, model: d.model, field: d.field, ...(objectOf(d.filter) && { filter: objectOf(d.filter) }) };
  if (d.source_type === 'jinja2') return { ...common, template: d.template };
  return {
    ...common,
    url: d.url.trim(),
    method: d.method,
    timeout: Number(d.timeout),
    ...(objectOf(d.headers) && { headers: objectOf(d.headers) }),
    ...(d.method === 'POST' && objectOf(d.body) && { body: objectOf(d.body) }),
    ...(d.json_path && { json_path: d.json_path }),
    ...(d.value_field && { value_field: d.value_field }),
  };
}

/** The "Dynamic choices" section of the question form: whether the choices come from a source, and its settings. */
export function DynamicChoicesFields({ draft, onChange, problems }: { draft: DynamicDraft; onChange: (draft: DynamicDraft) => void; problems: Record<string, string> }) {
  const set = <K extends keyof DynamicDraft>(key: K, value: DynamicDraft[K]) => onChange({ ...draft, [key]: value });
  const group = (key: keyof DynamicDraft, label: string, control: React.ReactNode, hint?: string) => (
    <FormGroup label={label} fieldId={`question-dynamic-${key}`}>
      {control}
      {(problems[key] || hint) && (
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant={problems[key] ? 'error' : 'default'} id={`question-dynamic-${key}-help`}>{problems[key] ?? hint}</HelperTextItem>
          </HelperText>
        </FormHelperText>
      )}
    </FormGroup>
  );
  const input = (key: keyof DynamicDraft, type: 'text' | 'number' = 'text') => (
    <TextInput id={`question-dynamic-${key}`} type={type} value={String(draft[key])} onChange={(_e, v) => set(key, v as never)} validated={problems[key] ? 'error' : 'default'} />
  );
  const area = (key: keyof DynamicDraft) => (
    <TextArea id={`question-dynamic-${key}`} className="drover-mono" value={String(draft[key])} onChange={(_e, v) => set(key, v as never)} validated={problems[key] ? 'error' : 'default'} resizeOrientation="vertical" />
  );
  const select = (key: keyof DynamicDraft, options: [string, string][]) => (
    <FormSelect id={`question-dynamic-${key}`} value={String(draft[key])} onChange={(_e, v) => set(key, v as never)}>
      {options.map(([value, label]) => <FormSelectOption key={value} value={value} label={label} />)}
    </FormSelect>
  );
  const pairs = (values: string[]): [string, string][] => values.map((v) => [v, v]);

  return (
    <Grid hasGutter>
      <GridItem span={12}>
        <Title headingLevel="h3" size="md">Dynamic choices</Title>
        <Checkbox id="question-dynamic-enabled" label="Loaded at launch from a source" isChecked={draft.enabled} onChange={(_e, v) => set('enabled', v)} />
      </GridItem>
      {draft.enabled && (
        <>
          <GridItem span={12} md={6}>{group('source_type', 'Source', select('source_type', SOURCE_TYPES))}</GridItem>
          <GridItem span={12} md={6}>{group('cache_ttl', 'Cache (seconds)', input('cache_ttl', 'number'), '0: ask the source every time.')}</GridItem>
          {draft.source_type === 'db_query' && (
            <>
              <GridItem span={12} md={6}>{group('model', 'Objects', select('model', pairs(MODELS)))}</GridItem>
              <GridItem span={12} md={6}>{group('field', 'Field', select('field', pairs(FIELDS)))}</GridItem>
              <GridItem span={12}>{group('filter', 'Filter', area('filter'), 'JSON, e.g. {"name__startswith": "web"}. Hosts and groups without a filter: the template’s inventory.')}</GridItem>
            </>
          )}
          {draft.source_type === 'api_endpoint' && (
            <>
              <GridItem span={12} md={8}>{group('url', 'URL', input('url'))}</GridItem>
              <GridItem span={6} md={2}>{group('method', 'Method', select('method', pairs(['GET', 'POST'])))}</GridItem>
              <GridItem span={6} md={2}>{group('timeout', 'Timeout (s)', input('timeout', 'number'))}</GridItem>
              <GridItem span={12} md={6}>{group('json_path', 'JSON path', input('json_path'), 'Dot path to the list, e.g. data.items.')}</GridItem>
              <GridItem span={12} md={6}>{group('value_field', 'Value field', input('value_field'), 'Field of each item to show.')}</GridItem>
              <GridItem span={12} md={6}>{group('headers', 'Headers', area('headers'), 'JSON object.')}</GridItem>
              {draft.method === 'POST' && <GridItem span={12} md={6}>{group('body', 'Body', area('body'), 'JSON object.')}</GridItem>}
            </>
          )}
          {draft.source_type === 'jinja2' && (
            <GridItem span={12}>{group('template', 'Template', area('template'), 'Outputs a JSON list; hosts and groups hold the names of the template’s inventory, e.g. {{ hosts | tojson }}.')}</GridItem>
          )}
        </>
      )}
    </Grid>
  );
}
