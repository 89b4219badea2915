import { Checkbox, FormGroup, FormHelperText, FormSelect, FormSelectOption, Grid, GridItem, HelperText, HelperTextItem, TextArea, TextInput, Title } from '@patternfly/react-core';
import { ENCRYPTED, SecretInput } from '../../components/SecretInput';

/** A field of a notification kind's configuration, as OPTIONS describes it. */
export interface ConfigFieldMeta {
  label: string;
  type: 'string' | 'int' | 'bool' | 'list' | 'password' | 'object';
  default?: unknown;
}

/** What the editors hold: lists and objects as text until sent. */
export type ConfigDraft = Record<string, unknown>;

/** The editable form of a stored configuration. */
export function draftOf(meta: Record<string, ConfigFieldMeta>, stored: Record<string, unknown> | undefined): ConfigDraft {
  const draft: ConfigDraft = {};
  for (const [name, field] of Object.entries(meta)) {
    const value = stored && name in stored ? stored[name] : field.default;
    if (field.type === 'list') draft[name] = Array.isArray(value) ? value.join('\n') : '';
    else if (field.type === 'object') draft[name] = value && typeof value === 'object' && Object.keys(value).length ? JSON.stringify(value, null, 2) : '';
    else if (field.type === 'bool') draft[name] = !!value;
    else draft[name] = value ?? '';
  }
  return draft;
}

/**
 * The configuration to send, or the problems of fields that cannot be read. Blank numbers and
 * empty lists are left out, so the API names them when they are required.
 */
export function configurationOf(meta: Record<string, ConfigFieldMeta>, draft: ConfigDraft): { value: Record<string, unknown>; problems: Record<string, string> } {
  const value: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const [name, field] of Object.entries(meta)) {
    const raw = draft[name];
    if (field.type === 'int') {
      if (raw === '' || raw === undefined || raw === null) continue;
      const n = Number(raw);
      if (!Number.isInteger(n)) problems[name] = 'Enter a whole number.';
      else value[name] = n;
    } else if (field.type === 'list') {
      const items = String(raw ?? '').split('\n').map((s) => s.trim()).filter(Boolean);
      if (items.length) value[name] = items;
    } else if (field.type === 'object') {
      const text = String(raw ?? '').trim();
      if (!text) value[name] = {};
      else {
        try {
          const parsed = JSON.parse(text);
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) problems[name] = 'Enter a JSON object, like {"X-Token": "abc"}.';
          else value[name] = parsed;
        } catch (err) {
          problems[name] = `JSON: ${(err as Error).message}`;
        }
      }
    } else if (field.type === 'bool') value[name] = !!raw;
    else value[name] = String(raw ?? '');
  }
  return { value, problems };
}

/** Spreads the API's configuration messages over the fields they name. */
export function placeMessages(meta: Record<string, ConfigFieldMeta>, messages: string[]): { byName: Record<string, string>; other: string[] } {
  const byName: Record<string, string> = {};
  const other: string[] = [];
  const add = (name: string, text: string) => (byName[name] = byName[name] ? `${byName[name]} ${text}` : text);
  for (const message of messages) {
    const missing = /Missing required fields[^:]*:\s*(.+?)\.?$/.exec(message);
    if (missing) {
      for (const name of missing[1].split(',').map((s) => s.trim())) if (meta[name]) add(name, 'Required.');
      continue;
    }
    const named = Object.keys(meta).find((name) => message.includes(`'${name}'`) || message.includes(` ${name}.`));
    if (named) add(named, message);
    else if (/HTTP method/.test(message) && meta.http_method) add('http_method', message);
    else other.push(message);
  }
  return { byName, other };
}

const TEXTAREA_HELP: Partial<Record<ConfigFieldMeta['type'], string>> = { list: 'One per line.', object: 'A JSON object of names to values.' };

/** The inputs of one notification kind's configuration. */
export function ConfigurationFields({ meta, draft, stored, onChange, errors }: {
  meta: Record<string, ConfigFieldMeta>;
  draft: ConfigDraft;
  /** The configuration as the template was read (which secrets are saved). */
  stored: Record<string, unknown>;
  onChange: (name: string, value: unknown) => void;
  errors: Record<string, string>;
}) {
  return (
    <section aria-label="Notification settings">
      <Title headingLevel="h2" size="md" style={{ margin: '1rem 0 0.5rem' }}>Type details</Title>
      <Grid hasGutter>
        {Object.entries(meta).map(([name, field]) => (
          <GridItem key={name} span={12} md={field.type === 'list' || field.type === 'object' ? 12 : 6}>
            <ConfigInput name={name} field={field} value={draft[name]} saved={stored[name] === ENCRYPTED} onChange={(v) => onChange(name, v)} error={errors[name]} />
          </GridItem>
        ))}
      </Grid>
    </section>
  );
}

function ConfigInput({ name, field, value, saved, onChange, error }: { name: string; field: ConfigFieldMeta; value: unknown; saved: boolean; onChange: (v: unknown) => void; error?: string }) {
  const id = `config-${name}`;
  const validated = error ? 'error' : 'default';
  if (field.type === 'password') return <SecretInput id={id} label={field.label} value={String(value ?? '')} stored={saved} onChange={onChange} error={error} />;
  const helper = (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>{error ?? TEXTAREA_HELP[field.type] ?? ''}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );
  if (field.type === 'bool') {
    return (
      <FormGroup fieldId={id}>
        <Checkbox id={id} label={field.label} isChecked={!!value} onChange={(_e, checked) => onChange(checked)} />
        {error && helper}
      </FormGroup>
    );
  }
  let control;
  if (name === 'http_method') {
    control = (
      <FormSelect id={id} value={String(value || 'POST').toUpperCase()} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`}>
        <FormSelectOption value="POST" label="POST" />
        <FormSelectOption value="PUT" label="PUT" />
      </FormSelect>
    );
  } else if (field.type === 'list' || field.type === 'object') {
    control = <TextArea id={id} className="drover-mono" value={String(value ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} resizeOrientation="vertical" spellCheck={false} />;
  } else {
    control = <TextInput id={id} type={field.type === 'int' ? 'number' : 'text'} value={String(value ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} autoComplete="off" />;
  }
  return (
    <FormGroup label={field.label} fieldId={id}>
      {control}
      {helper}
    </FormGroup>
  );
}
