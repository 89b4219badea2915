import { Checkbox, Stack, StackItem } from '@patternfly/react-core';
import type { ObjectRole } from './role-grants';

/** Roles of an object to tick, with what each one allows. */
export function RoleChecklist({ roles, selected, onChange, idPrefix }: { roles: [string, ObjectRole][]; selected: number[]; onChange: (ids: number[]) => void; idPrefix: string }) {
  if (!roles.length) return <>This object has no roles to give.</>;
  return (
    <Stack hasGutter role="group" aria-label="Roles">
      {roles.map(([field, role]) => (
        <StackItem key={field}>
          <Checkbox
            id={`${idPrefix}-${field}`}
            label={role.name}
            description={role.description}
            isChecked={selected.includes(role.id)}
            onChange={(_e, checked) => onChange(checked ? [...selected, role.id] : selected.filter((id) => id !== role.id))}
          />
        </StackItem>
      ))}
    </Stack>
  );
}
