import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Flex, FlexItem, FormGroup, FormSelect, FormSelectOption, Label, LabelGroup } from '@patternfly/react-core';
import { http, withQuery, type Page } from '../../../api/client';
import { ReferenceSelect } from '../../../components/ReferenceSelect';
import { fieldHelp } from '../../../components/field-help';
import { RUN_CREDENTIAL_KINDS, vaultIdOf, withCredential, type Credential, type CredentialType } from './related-lists';

/** The credential types a run takes, for the type menu. */
export function useRunCredentialTypes() {
  return useQuery({
    queryKey: ['/api/v2/credential_types/', 'run kinds'],
    queryFn: async () => (await http.get<Page<CredentialType>>(withQuery('/api/v2/credential_types/', { page_size: 200, order_by: 'name' }))).results.filter((t) => RUN_CREDENTIAL_KINDS.has(t.kind)),
    staleTime: 60_000,
  });
}

/**
 * A template's credentials, picked by type as in AWX: choose the type, then a credential of it. A
 * template holds one credential per type (vault credentials one per vault id), so a new pick
 * replaces the one in its slot.
 */
export function CredentialsPicker({ value, onChange, error, labelInfo }: {
  value: Credential[];
  onChange: (value: Credential[]) => void;
  error?: string;
  labelInfo?: React.ReactNode;
}) {
  const queryClient = useQueryClient();
  const types = useRunCredentialTypes();
  const [typeId, setTypeId] = useState<number | null>(null);
  const shownType = typeId ?? types.data?.find((t) => t.kind === 'ssh')?.id ?? types.data?.[0]?.id ?? null;
  const typeOf = (id: number) => types.data?.find((t) => t.id === id);

  const pick = async (id: number | null) => {
    if (!id) return;
    const credential = await queryClient.fetchQuery({ queryKey: [`/api/v2/credentials/${id}/`], queryFn: () => http.get<Credential>(`/api/v2/credentials/${id}/`) });
    onChange(withCredential(value, credential, (typeId) => typeOf(typeId)?.kind));
  };

  const id = 'field-credentials';
  return (
    <FormGroup label="Credentials" labelInfo={labelInfo} fieldId={id} role="group">
      <Flex>
        <FlexItem>
          <FormSelect id={`${id}-type`} aria-label="Credential type" value={shownType ?? ''} onChange={(_e, v) => setTypeId(Number(v))}>
            {(types.data ?? []).map((t) => (
              <FormSelectOption key={t.id} value={t.id} label={t.name} />
            ))}
          </FormSelect>
        </FlexItem>
        <FlexItem grow={{ default: 'grow' }}>
          {shownType !== null && (
            <ReferenceSelect id={id} label="Credentials" listUrl="/api/v2/credentials/" value={null} onChange={(picked) => void pick(picked)} query={{ credential_type: shownType }} validated={error ? 'error' : 'default'} />
          )}
        </FlexItem>
      </Flex>
      <LabelGroup categoryName="Chosen credentials" numLabels={10} aria-label="Chosen credentials">
        {value.map((c) => {
          const type = typeOf(c.credential_type);
          const vaultId = vaultIdOf(c);
          return (
            <Label key={c.id} onClose={() => onChange(value.filter((o) => o.id !== c.id))} closeBtnAriaLabel={`Remove ${c.name}`} data-credential={c.id}>
              {type ? `${type.name}${vaultId ? ` (${vaultId})` : ''}: ` : ''}
              {c.name}
            </Label>
          );
        })}
      </LabelGroup>
      {fieldHelp(id, error, 'One credential per type; vault credentials one per vault id.')}
    </FormGroup>
  );
}
