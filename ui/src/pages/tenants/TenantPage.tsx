import { Link, useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Breadcrumb, BreadcrumbItem, Button, DescriptionList, Flex, PageSection } from '@patternfly/react-core';
import { PencilAltIcon } from '@patternfly/react-icons';
import { http } from '../../api/client';
import type { ResourceConfig } from '../../resources/types';
import { resourceConfig } from '../../resources/registry';
import { DetailHeader } from '../../components/DetailHeader';
import { ResourceList } from '../../components/ResourceList';
import { RoutedTabs } from '../../components/RoutedTabs';
import TenantActions from './TenantActions';
import { formatDate } from '../../components/cells';
import { DetailItem, DetailSection } from '../event-rules/DetailItem';
import { BrandingPreview } from './BrandingPreview';
import { UsageBars } from './UsageBars';
import type { Tenant } from './tenant-types';

/** Usage moves as the tenant's runs start and end: read again this often (ms). */
const LIVE = 5_000;

/** A tenant: its organization, admin and team, its quotas with live usage, its branding, and its quota decisions. */
export default function TenantPage({ object, config }: { object: Tenant; config: ResourceConfig }) {
  const navigate = useNavigate();
  const live = useQuery({ queryKey: [object.url], queryFn: () => http.get<Tenant>(object.url), initialData: object, refetchInterval: LIVE });
  const tenant = live.data;
  const events = resourceConfig('tenant_quota_events');
  return (
    <>
      <PageSection>
        <Breadcrumb>
          <BreadcrumbItem render={() => <Link to="/tenants">{config.label}</Link>} />
          <BreadcrumbItem isActive>{tenant.name}</BreadcrumbItem>
        </Breadcrumb>
        <DetailHeader
          title={tenant.name}
          actions={
            <Flex spaceItems={{ default: 'spaceItemsSm' }} justifyContent={{ default: 'justifyContentFlexEnd' }}>
              {tenant.summary_fields.user_capabilities?.edit && (
                <Button variant="secondary" icon={<PencilAltIcon />} onClick={() => navigate(`/tenants/${tenant.id}/edit`)}>Edit</Button>
              )}
              <TenantActions object={tenant} variant="detail" />
            </Flex>
          }
        />
      </PageSection>
      <PageSection>
        <RoutedTabs
          base={`/tenants/${tenant.id}`}
          label="Tenant sections"
          tabs={[
            { key: 'details', label: 'Details', content: () => <TenantDetails tenant={tenant} /> },
            ...(events ? [{ key: 'quota_events', label: 'Quota decisions', content: () => <ResourceList config={events} url={`/api/v2/tenant_quota_events/?tenant=${tenant.id}`} refetchInterval={LIVE} /> }] : []),
          ]}
        />
      </PageSection>
    </>
  );
}

function TenantDetails({ tenant }: { tenant: Tenant }) {
  const { organization, admin_user: admin, team } = tenant.summary_fields;
  return (
    <>
      <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col' }} aria-label="Details">
        <DetailItem name="organization" term="Organization">{organization ? <Link to={`/organizations/${organization.id}`}>{organization.name}</Link> : '–'}</DetailItem>
        <DetailItem name="description" term="Description">{tenant.description || '–'}</DetailItem>
        <DetailItem name="admin_user" term="Admin user">{admin ? <Link to={`/users/${admin.id}`}>{admin.username}</Link> : '–'}</DetailItem>
        <DetailItem name="team" term="Default team">{team ? <Link to={`/teams/${team.id}`}>{team.name}</Link> : '–'}</DetailItem>
        <DetailItem name="created" term="Created">{formatDate(tenant.created)}</DetailItem>
        <DetailItem name="modified" term="Modified">{formatDate(tenant.modified)}</DetailItem>
      </DescriptionList>
      <DetailSection title="Quotas and usage">
        <UsageBars tenant={tenant} />
      </DetailSection>
      <DetailSection title="Branding">
        <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col' }} aria-label="Branding">
          <DetailItem name="custom_domain" term="Custom domain">{tenant.branding.custom_domain || '–'}</DetailItem>
          <DetailItem name="contact_email" term="Contact email">{tenant.branding.contact_email || '–'}</DetailItem>
          <DetailItem name="logo_url" term="Logo URL"><span className="drover-mono">{tenant.branding.logo_url || '–'}</span></DetailItem>
          <DetailItem name="primary_color" term="Colours"><span className="drover-mono">{[tenant.branding.primary_color, tenant.branding.secondary_color].filter(Boolean).join(', ') || '–'}</span></DetailItem>
        </DescriptionList>
        <BrandingPreview name={tenant.name} branding={tenant.branding} />
      </DetailSection>
    </>
  );
}
