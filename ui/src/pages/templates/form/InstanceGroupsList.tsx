import { useQueryClient } from '@tanstack/react-query';
import { Button, DataList, DataListAction, DataListCell, DataListItem, DataListItemCells, DataListItemRow, FormGroup } from '@patternfly/react-core';
import { ArrowDownIcon, ArrowUpIcon, TimesIcon } from '@patternfly/react-icons';
import { http } from '../../../api/client';
import { ReferenceSelect } from '../../../components/ReferenceSelect';
import { fieldHelp } from '../../../components/field-help';
import type { InstanceGroup } from './related-lists';

/** Instance groups in the order a run tries them: added with a lookup, moved up and down, removed. */
export function InstanceGroupsList({ value, onChange, error, labelInfo }: {
  value: InstanceGroup[];
  onChange: (value: InstanceGroup[]) => void;
  error?: string;
  labelInfo?: React.ReactNode;
}) {
  const queryClient = useQueryClient();
  const add = async (id: number | null) => {
    if (!id || value.some((g) => g.id === id)) return;
    const group = await queryClient.fetchQuery({ queryKey: [`/api/v2/instance_groups/${id}/`], queryFn: () => http.get<InstanceGroup>(`/api/v2/instance_groups/${id}/`) });
    onChange([...value, group]);
  };
  const move = (from: number, to: number) => {
    const next = [...value];
    const [group] = next.splice(from, 1);
    next.splice(to, 0, group);
    onChange(next);
  };
  const id = 'field-instance_groups';
  return (
    <FormGroup label="Instance groups" labelInfo={labelInfo} fieldId={id} role="group">
      <ReferenceSelect id={id} label="Instance groups" listUrl="/api/v2/instance_groups/" value={null} onChange={(picked) => void add(picked)} validated={error ? 'error' : 'default'} />
      {value.length > 0 && (
        <DataList aria-label="Chosen instance groups, in order" isCompact>
          {value.map((g, i) => (
            <DataListItem key={g.id} aria-labelledby={`instance-group-${g.id}`}>
              <DataListItemRow>
                <DataListItemCells dataListCells={[<DataListCell key="name"><span id={`instance-group-${g.id}`}>{`${i + 1}. ${g.name}`}</span></DataListCell>]} />
                <DataListAction id={`instance-group-${g.id}-actions`} aria-labelledby={`instance-group-${g.id}`} aria-label={`${g.name} actions`}>
                  <Button variant="plain" icon={<ArrowUpIcon />} aria-label={`Move ${g.name} up`} isDisabled={i === 0} onClick={() => move(i, i - 1)} />
                  <Button variant="plain" icon={<ArrowDownIcon />} aria-label={`Move ${g.name} down`} isDisabled={i === value.length - 1} onClick={() => move(i, i + 1)} />
                  <Button variant="plain" icon={<TimesIcon />} aria-label={`Remove ${g.name}`} onClick={() => onChange(value.filter((o) => o.id !== g.id))} />
                </DataListAction>
              </DataListItemRow>
            </DataListItem>
          ))}
        </DataList>
      )}
      {fieldHelp(id, error, 'Runs go to the first group with capacity, in this order.')}
    </FormGroup>
  );
}
