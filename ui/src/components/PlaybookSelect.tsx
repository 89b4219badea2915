import { FormSelect, FormSelectOption, TextInput } from '@patternfly/react-core';
import { useQuery } from '@tanstack/react-query';
import { http } from '../api/client';

/** A job template's playbook: one of the playbooks its project's last sync found (AWX's select). */
export function PlaybookSelect({ id, project, value, onChange, validated }: { id: string; project: unknown; value: unknown; onChange: (v: string) => void; validated: 'error' | 'default' }) {
  const playbooks = useQuery({
    queryKey: [`/api/v2/projects/${project}/playbooks/`],
    queryFn: () => http.get<string[]>(`/api/v2/projects/${project}/playbooks/`),
    enabled: typeof project === 'number',
  });
  const current = String(value ?? '');
  if (!playbooks.data) return <TextInput id={id} value={current} onChange={(_e, v) => onChange(v)} validated={validated} placeholder={project ? 'Loading playbooks…' : 'Pick a project first'} />;
  const choices = playbooks.data.includes(current) || !current ? playbooks.data : [current, ...playbooks.data];
  return (
    <FormSelect id={id} value={current} onChange={(_e, v) => onChange(v)} validated={validated}>
      <FormSelectOption value="" label={choices.length ? 'Choose a playbook' : 'The project has no playbooks (sync it?)'} isDisabled />
      {choices.map((p) => <FormSelectOption key={p} value={p} label={p} />)}
    </FormSelect>
  );
}
