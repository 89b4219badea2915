import { Grid, GridItem, Title } from '@patternfly/react-core';
import { asks, type LaunchDescription } from '../templates/launch/launch-plan';
import { CredentialsPicker } from '../templates/form/CredentialsPicker';
import { InstanceGroupsList } from '../templates/form/InstanceGroupsList';
import { LabelsInput } from '../templates/form/LabelsInput';
import type { Chosen } from '../templates/form/related-lists';
import type { RelatedList } from '../templates/form/template-layout';

/** The related lists a schedule saves (AWX's launch configuration): those its template asks for at launch. */
export function askedLists(description: LaunchDescription | null): RelatedList[] {
  if (!description) return [];
  const lists: [RelatedList, string][] = [['credentials', 'credential'], ['labels', 'labels'], ['instance_groups', 'instance_groups']];
  return lists.filter(([, flag]) => asks(description, flag)).map(([list]) => list);
}

/** A schedule's credentials (one per type), labels and instance groups (in order), where its template asks for them. */
export function ScheduleRelated({ lists, chosen, onChange, organization, errors, note = 'The scheduled runs use these instead of the template’s.' }: {
  lists: RelatedList[];
  chosen: Chosen;
  onChange: (update: (old: Chosen) => Chosen) => void;
  organization: number | null;
  errors: Record<string, string>;
  /** What the lists are for, under their title. */
  note?: string;
}) {
  if (!lists.length) return null;
  return (
    <section aria-label="Saved credentials, labels and instance groups">
      <Title headingLevel="h2" size="lg">Credentials, labels and instance groups</Title>
      <p className="drover-subtle">{note}</p>
      <Grid hasGutter>
        {lists.includes('credentials') && (
          <GridItem span={12} md={6}>
            <CredentialsPicker value={chosen.credentials} onChange={(credentials) => onChange((c) => ({ ...c, credentials }))} error={errors.credentials} />
          </GridItem>
        )}
        {lists.includes('labels') && (
          <GridItem span={12} md={6}>
            <LabelsInput value={chosen.labels} onChange={(labels) => onChange((c) => ({ ...c, labels }))} organization={organization} error={errors.labels} />
          </GridItem>
        )}
        {lists.includes('instance_groups') && (
          <GridItem span={12} md={6}>
            <InstanceGroupsList value={chosen.instance_groups} onChange={(instance_groups) => onChange((c) => ({ ...c, instance_groups }))} error={errors.instance_groups} />
          </GridItem>
        )}
      </Grid>
    </section>
  );
}
