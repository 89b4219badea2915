import { Label } from '@patternfly/react-core';
import { useObject } from '../../hooks/api-hooks';

/** A picked user or team, by name, with a button to drop it. */
export function PrincipalChip({ kind, id, onRemove }: { kind: string; id: number; onRemove: () => void }) {
  const object = useObject(`/api/v2/${kind}/${id}/`);
  const name = String(object.data?.username ?? object.data?.name ?? `#${id}`);
  return <Label onClose={onRemove} closeBtnAriaLabel={`Remove ${name}`}>{name}</Label>;
}
