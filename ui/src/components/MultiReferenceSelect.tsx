import { Label, LabelGroup, Stack, StackItem } from '@patternfly/react-core';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';
import type { AnyResource } from '../api/types';
import { ReferenceSelect } from './ReferenceSelect';

export interface Picked {
  id: number;
  name: string;
  [key: string]: unknown;
}

/** Several objects of one list (a launch's credentials, labels, instance groups): chosen ones as removable labels, a lookup to add. */
export function MultiReferenceSelect({ id, label, listUrl, value, onChange, query, validated }: {
  id: string;
  label: string;
  listUrl: string;
  value: Picked[];
  onChange: (value: Picked[]) => void;
  query?: Record<string, string | number>;
  validated?: 'error' | 'default';
}) {
  const queryClient = useQueryClient();
  const add = async (picked: number | null) => {
    if (!picked || value.some((v) => v.id === picked)) return;
    const object = await queryClient.fetchQuery({ queryKey: [`${listUrl}${picked}/`], queryFn: () => http.get<AnyResource>(`${listUrl}${picked}/`) });
    onChange([...value, { ...object, id: object.id, name: String(object.name ?? `#${object.id}`) }]);
  };
  return (
    <Stack hasGutter>
      <StackItem>
        <ReferenceSelect id={id} label={label} listUrl={listUrl} value={null} onChange={add} query={query} validated={validated} />
      </StackItem>
      <StackItem>
        <LabelGroup categoryName={`Chosen ${label.toLowerCase()}`} numLabels={10} aria-label={`Chosen ${label.toLowerCase()}`}>
          {value.map((v) => (
            <Label key={v.id} onClose={() => onChange(value.filter((o) => o.id !== v.id))} closeBtnAriaLabel={`Remove ${v.name}`}>
              {v.name}
            </Label>
          ))}
        </LabelGroup>
      </StackItem>
    </Stack>
  );
}
