import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { FormGroup, Label, LabelGroup, MenuToggle, Select, SelectList, SelectOption, TextInputGroup, TextInputGroupMain, type MenuToggleElement } from '@patternfly/react-core';
import { http, withQuery, type Page } from '../../../api/client';
import type { ResourceObject } from '../../../api/types';
import { fieldHelp } from '../../../components/field-help';
import type { ChosenLabel } from './related-lists';

/**
 * A template's labels, as AWX's label select: typing shows the organization's labels that match;
 * Enter, or "Create", takes the typed name as a new label, created in the organization when the
 * template is saved.
 */
export function LabelsInput({ value, onChange, organization, error, labelInfo }: {
  value: ChosenLabel[];
  onChange: (value: ChosenLabel[]) => void;
  organization: number | null;
  error?: string;
  labelInfo?: React.ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const matches = useQuery({
    queryKey: ['/api/v2/labels/', 'lookup', organization, typed],
    queryFn: () => http.get<Page<ResourceObject<'labels'>>>(withQuery('/api/v2/labels/', { organization, search: typed, order_by: 'name', page_size: 20 })),
    enabled: open && organization !== null,
  });
  const taken = (name: string) => value.some((l) => l.name === name);
  const offered = (matches.data?.results ?? []).filter((l) => !taken(l.name));
  const name = typed.trim();
  const add = (label: ChosenLabel) => {
    if (!taken(label.name)) onChange([...value, label]);
    setTyped('');
  };
  const addTyped = () => {
    if (!name) return;
    const existing = matches.data?.results.find((l) => l.name === name);
    add(existing ? { id: existing.id, name: existing.name } : { name });
  };

  const id = 'field-labels';
  const toggle = (ref: React.Ref<MenuToggleElement>) => (
    <MenuToggle ref={ref} variant="typeahead" onClick={() => setOpen(!open)} isExpanded={open} isFullWidth status={error ? 'danger' : undefined}>
      <TextInputGroup isPlain>
        <TextInputGroupMain
          inputId={id}
          aria-label="Labels"
          value={typed}
          placeholder={organization === null ? 'Choose a project first' : 'Type a label, Enter to add'}
          onClick={() => setOpen(true)}
          onChange={(_e, text) => {
            setTyped(text);
            setOpen(true);
          }}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            e.preventDefault();
            addTyped();
          }}
          autoComplete="off"
          role="combobox"
          isExpanded={open}
        />
      </TextInputGroup>
    </MenuToggle>
  );

  return (
    <FormGroup label="Labels" labelInfo={labelInfo} fieldId={id}>
      <Select
        isOpen={open}
        // Inside the field: a dialog (a workflow node's) hides the page's other parts from screen readers.
        popperProps={{ appendTo: 'inline' }}
        onSelect={(_e, selected) => {
          const picked = offered.find((l) => l.id === selected);
          if (picked) add({ id: picked.id, name: picked.name });
          else addTyped();
          setOpen(false);
        }}
        onOpenChange={setOpen}
        toggle={toggle}
      >
        <SelectList aria-label="Labels choices">
          {offered.map((l) => (
            <SelectOption key={l.id} value={l.id}>
              {l.name}
            </SelectOption>
          ))}
          {name && !taken(name) && !offered.some((l) => l.name === name) && <SelectOption value="create">{`Create "${name}"`}</SelectOption>}
          {!name && !offered.length && <SelectOption isDisabled>{matches.isPending ? 'Loading…' : 'No labels yet: type one'}</SelectOption>}
        </SelectList>
      </Select>
      <LabelGroup categoryName="Chosen labels" numLabels={10} aria-label="Chosen labels">
        {value.map((l) => (
          <Label key={l.id ?? `new:${l.name}`} onClose={() => onChange(value.filter((o) => o !== l))} closeBtnAriaLabel={`Remove ${l.name}`} color={l.id ? 'blue' : 'green'}>
            {l.name}
            {l.id ? '' : ' (new)'}
          </Label>
        ))}
      </LabelGroup>
      {fieldHelp(id, error, organization === null ? undefined : "New labels are created in the template's organization when it is saved.")}
    </FormGroup>
  );
}
