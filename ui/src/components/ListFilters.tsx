import { useState, type FormEvent } from 'react';
import { Button, FormSelect, FormSelectOption, TextInput } from '@patternfly/react-core';
import type { FieldMeta, OptionsDoc } from '../api/types';
import type { ListFilter } from '../resources/types';

type Add = (key: string, value: string) => void;

/** One "Filter by" choice: the query key it writes, its label, and how its value is asked. */
interface Offered {
  key: string;
  label: string;
  input: 'text' | 'number' | 'datetime' | 'boolean' | 'choice';
  choices?: [string | number, string][];
}

/** The filters a list offers: the resource's own short list when it has one, else every filterable field. */
function offered(options: OptionsDoc | undefined, filters: ListFilter[] | undefined): Offered[] {
  const meta = options?.actions?.GET ?? {};
  if (filters) {
    return filters.map((f) => {
      if (f.choices) return { key: f.key, label: f.label, input: 'choice', choices: f.choices };
      const field: FieldMeta | undefined = f.choicesOf ? meta[f.choicesOf] : undefined;
      return field?.choices ? { key: f.key, label: f.label, input: 'choice', choices: field.choices } : { key: f.key, label: f.label, input: f.input ?? 'text' };
    });
  }
  return Object.entries(meta)
    .filter(([, m]) => m.filterable)
    .map(([name, m]) => {
      if (m.choices) return { key: name, label: m.label ?? name, input: 'choice', choices: m.choices };
      if (m.type === 'boolean') return { key: name, label: m.label ?? name, input: 'boolean' };
      return { key: m.type === 'string' ? `${name}__icontains` : name, label: m.label ?? name, input: 'text' };
    });
}

/** A datetime-local value ("2026-11-29T10:30") as the API takes it: an ISO instant in UTC. */
const isoOf = (local: string) => {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
};

/** Adds one filter: a field, then a value (contains for text, exact otherwise). */
export function FieldFilter({ options, filters, onAdd }: { options: OptionsDoc | undefined; filters?: ListFilter[]; onAdd: Add }) {
  const fields = offered(options, filters);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const field = fields.find((f) => f.key === key);
  if (!fields.length) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!field || value === '') return;
    onAdd(field.key, field.input === 'datetime' ? isoOf(value) : value);
    setValue('');
  };
  return (
    <form onSubmit={submit} style={{ display: 'flex', gap: '0.5rem' }} aria-label="Add a filter">
      <FormSelect aria-label="Filter field" value={key} onChange={(_e, v) => { setKey(v); setValue(''); }} style={{ maxWidth: '14rem' }}>
        <FormSelectOption value="" label="Filter by…" />
        {fields.map((f) => (
          <FormSelectOption key={f.key} value={f.key} label={f.label} />
        ))}
      </FormSelect>
      {field && (field.input === 'choice' || field.input === 'boolean' ? (
        <FormSelect aria-label="Filter value" value={value} onChange={(_e, v) => setValue(v)}>
          <FormSelectOption value="" label="Any" />
          {(field.choices ?? [['true', 'Yes'], ['false', 'No']]).map(([v, l]) => <FormSelectOption key={String(v)} value={String(v)} label={l} />)}
        </FormSelect>
      ) : (
        <TextInput aria-label="Filter value" type={field.input === 'datetime' ? 'datetime-local' : field.input === 'number' ? 'number' : 'text'} value={value} onChange={(_e, v) => setValue(v)} />
      ))}
      {field && <Button type="submit" variant="secondary">Filter</Button>}
    </form>
  );
}

/** AWX's advanced search lookups, as its console names them. */
const LOOKUPS: [lookup: string, label: string][] = [
  ['exact', 'exact'],
  ['iexact', 'exact (any case)'],
  ['icontains', 'contains'],
  ['startswith', 'starts with'],
  ['endswith', 'ends with'],
  ['regex', 'matches regex'],
  ['gt', 'greater than'],
  ['gte', 'greater than or equal'],
  ['lt', 'less than'],
  ['lte', 'less than or equal'],
  ['in', 'in (comma-separated)'],
  ['isnull', 'is null'],
];

/** How conditions combine, as AWX's advanced search sets them: and (all hold), or (any holds), not. */
const SET_TYPES: [prefix: string, label: string][] = [
  ['', 'and'],
  ['or__', 'or'],
  ['not__', 'not'],
];

/**
 * AWX's advanced search: any filterable key (and the related `__search` keys OPTIONS lists), a
 * lookup and a value, written into the query string as the API takes it (`not__name__icontains=web`).
 */
export function AdvancedSearch({ options, onAdd }: { options: OptionsDoc | undefined; onAdd: Add }) {
  const keys = [
    ...Object.entries(options?.actions?.GET ?? {}).filter(([, m]) => m.filterable).map(([name]) => name),
    ...(options?.related_search_fields ?? []),
  ];
  const [setType, setSetType] = useState('');
  const [key, setKey] = useState('');
  const [lookup, setLookup] = useState('exact');
  const [value, setValue] = useState('');
  if (!keys.length) return null;
  const related = key.endsWith('__search');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!key || (value === '' && lookup !== 'isnull')) return;
    const name = `${setType}${key}${related || lookup === 'exact' ? '' : `__${lookup}`}`;
    onAdd(name, lookup === 'isnull' && !related ? value || 'true' : value);
    setValue('');
  };
  return (
    <form onSubmit={submit} style={{ display: 'flex', gap: '0.5rem', flexWrap: 'wrap', alignItems: 'center' }} aria-label="Advanced search">
      <div style={{ width: '6rem' }}>
        <FormSelect aria-label="Set type" value={setType} onChange={(_e, v) => setSetType(v)}>
          {SET_TYPES.map(([prefix, label]) => <FormSelectOption key={label} value={prefix} label={label} />)}
        </FormSelect>
      </div>
      <div style={{ width: '14rem' }}>
        <FormSelect aria-label="Key" value={key} onChange={(_e, v) => setKey(v)}>
          <FormSelectOption value="" label="Key…" />
          {keys.map((k) => <FormSelectOption key={k} value={k} label={k} />)}
        </FormSelect>
      </div>
      {!related && (
        <div style={{ width: '12rem' }}>
          <FormSelect aria-label="Lookup" value={lookup} onChange={(_e, v) => setLookup(v)}>
            {LOOKUPS.map(([l, label]) => <FormSelectOption key={l} value={l} label={label} />)}
          </FormSelect>
        </div>
      )}
      <div style={{ width: '14rem' }}>
        {lookup === 'isnull' && !related ? (
          <FormSelect aria-label="Value" value={value || 'true'} onChange={(_e, v) => setValue(v)}>
            <FormSelectOption value="true" label="true" />
            <FormSelectOption value="false" label="false" />
          </FormSelect>
        ) : (
          <TextInput aria-label="Value" value={value} onChange={(_e, v) => setValue(v)} />
        )}
      </div>
      <Button type="submit" variant="secondary" isDisabled={!key}>
        Search
      </Button>
    </form>
  );
}
