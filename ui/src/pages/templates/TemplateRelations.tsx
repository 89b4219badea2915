import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Label, LabelGroup } from '@patternfly/react-core';
import { http, withQuery, type Page } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import './templates.css';

type Template = ResourceObject<'job_templates' | 'workflow_job_templates'>;

/** A credential as a template's summary_fields lists it (AWX's summarizable fields of Credential). */
interface CredentialSummary {
  id: number;
  name: string;
  kind: string;
  credential_type_id?: number;
}

interface LabelsSummary {
  results?: { id: number; name: string }[];
}

const credentialsOf = (t: Template) => (Array.isArray(t.summary_fields.credentials) ? (t.summary_fields.credentials as CredentialSummary[]) : []);
const labelsOf = (t: Template) => ((t.summary_fields.labels as LabelsSummary | undefined)?.results ?? []);

/** A template's credentials (with their types), labels and instance groups (in order), linked to their pages. */
export default function TemplateRelations({ object }: { object: Template }) {
  const credentials = credentialsOf(object);
  const types = useQuery({
    queryKey: ['/api/v2/credential_types/', 'all'],
    queryFn: () => http.get<Page<ResourceObject<'credential_types'>>>(withQuery('/api/v2/credential_types/', { page_size: 200 })),
    enabled: credentials.length > 0,
    staleTime: 60_000,
  });
  const groups = usePage<ResourceObject<'instance_groups'>>(object.related.instance_groups);
  const typeName = (c: CredentialSummary) => types.data?.results.find((t) => t.id === c.credential_type_id)?.name ?? c.kind;
  return (
    <DescriptionList isCompact columnModifier={{ default: '1Col', md: '3Col' }} aria-label="Credentials, labels and instance groups" className="drover-template-relations">
      {'credentials' in object.related && (
        <DescriptionListGroup>
          <DescriptionListTerm>Credentials</DescriptionListTerm>
          <DescriptionListDescription data-field="credentials">
            {credentials.length ? (
              <LabelGroup numLabels={20} aria-label="Credentials">
                {credentials.map((c) => (
                  <Label key={c.id} isClickable render={({ className, content }) => <Link to={`/credentials/${c.id}`} className={className}>{content}</Link>}>
                    {`${typeName(c)}: ${c.name}`}
                  </Label>
                ))}
              </LabelGroup>
            ) : '–'}
          </DescriptionListDescription>
        </DescriptionListGroup>
      )}
      <DescriptionListGroup>
        <DescriptionListTerm>Labels</DescriptionListTerm>
        <DescriptionListDescription data-field="labels">
          {labelsOf(object).length ? (
            <LabelGroup numLabels={20} aria-label="Labels">
              {labelsOf(object).map((l) => (
                <Label key={l.id} color="blue" isClickable render={({ className, content }) => <Link to={`/labels/${l.id}`} className={className}>{content}</Link>}>
                  {l.name}
                </Label>
              ))}
            </LabelGroup>
          ) : '–'}
        </DescriptionListDescription>
      </DescriptionListGroup>
      {object.related.instance_groups && (
        <DescriptionListGroup>
          <DescriptionListTerm>Instance groups</DescriptionListTerm>
          <DescriptionListDescription data-field="instance_groups">
            {groups.data?.results.length ? (
              <ol className="drover-ordered-list">
                {groups.data.results.map((g) => (
                  <li key={g.id}>
                    <Link to={`/instance_groups/${g.id}`}>{g.name}</Link>
                  </li>
                ))}
              </ol>
            ) : '–'}
          </DescriptionListDescription>
        </DescriptionListGroup>
      )}
    </DescriptionList>
  );
}
