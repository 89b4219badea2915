import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { MenuToggle, Select, SelectList, SelectOption, TextInputGroup, TextInputGroupMain, TextInputGroupUtilities, Button, type MenuToggleElement } from '@patternfly/react-core';
import { TimesIcon } from '@patternfly/react-icons';
import { http, withQuery, type Page } from '../api/client';
import type { AnyResource } from '../api/types';

const nameOf = (o: AnyResource) => String(o.name ?? o.username ?? o.hostname ?? `#${o.id}`);

/** Picks one object of a list by typing part of its name (the API's search), like AWX's lookups. */
export function ReferenceSelect({ id, label, listUrl, value, onChange, query = {}, validated }: {
  id: string;
  label: string;
  listUrl: string;
  value: number | null | undefined;
  onChange: (id: number | null) => void;
  query?: Record<string, string | number>;
  validated?: 'error' | 'default';
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState<string | null>(null);
  const results = useQuery({
    queryKey: [listUrl, 'lookup', typed, query],
    queryFn: () => http.get<Page<AnyResource>>(withQuery(listUrl, { order_by: 'name', ...query, search: typed ?? '', page_size: 20 })),
    enabled: open,
  });
  const current = useQuery({
    queryKey: [`${listUrl}${value}/`],
    queryFn: () => http.get<AnyResource>(`${listUrl}${value}/`),
    enabled: !!value,
  });
  const shown = typed ?? (value ? (current.data ? nameOf(current.data) : `#${value}`) : '');

  const toggle = (ref: React.Ref<MenuToggleElement>) => (
    <MenuToggle ref={ref} variant="typeahead" onClick={() => setOpen(!open)} isExpanded={open} isFullWidth status={validated === 'error' ? 'danger' : undefined}>
      <TextInputGroup isPlain>
        <TextInputGroupMain
          inputId={id}
          aria-label={label}
          value={shown}
          placeholder={`Search ${label.toLowerCase()}`}
          onClick={() => setOpen(true)}
          onChange={(_e, text) => {
            setTyped(text);
            setOpen(true);
          }}
          autoComplete="off"
          role="combobox"
          isExpanded={open}
        />
        {value ? (
          <TextInputGroupUtilities>
            <Button variant="plain" aria-label={`Clear ${label}`} icon={<TimesIcon />} onClick={() => { onChange(null); setTyped(null); }} />
          </TextInputGroupUtilities>
        ) : null}
      </TextInputGroup>
    </MenuToggle>
  );

  return (
    <Select
      isOpen={open}
      // Inside the field, not at the end of the page: a dialog hides the page's other parts from screen readers, a menu there too.
      popperProps={{ appendTo: 'inline' }}
      selected={value ?? undefined}
      onSelect={(_e, selected) => {
        onChange(Number(selected));
        setTyped(null);
        setOpen(false);
      }}
      onOpenChange={setOpen}
      toggle={toggle}
    >
      <SelectList aria-label={`${label} choices`}>
        {results.isPending ? (
          <SelectOption isDisabled>Loading…</SelectOption>
        ) : results.data?.results.length ? (
          results.data.results.map((o) => (
            <SelectOption key={o.id} value={o.id}>
              {nameOf(o)}
            </SelectOption>
          ))
        ) : (
          <SelectOption isDisabled>{results.error ? (results.error as Error).message : 'Nothing matches'}</SelectOption>
        )}
      </SelectList>
    </Select>
  );
}
