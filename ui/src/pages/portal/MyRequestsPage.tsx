import { useLocation } from 'react-router';
import { Alert, PageSection, Title } from '@patternfly/react-core';
import { ResourceList } from '../../components/ResourceList';
import { followRequests, MY_REQUESTS } from './request-lists';
import './portal.css';

interface Submitted { id: number; item: string; status: string }

/** /my_requests: the user's requests, their status followed live, and a link to each run. */
export default function MyRequestsPage() {
  const submitted = (useLocation().state as { submitted?: Submitted } | null)?.submitted;
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">My requests</Title>
      </PageSection>
      <PageSection>
        {submitted && (
          <Alert variant="success" isInline title={`Request #${submitted.id} for ${submitted.item} submitted`} style={{ marginBottom: '1rem' }}>
            {submitted.status === 'pending_approval' ? 'It waits for an approver.' : 'Its status below follows the run.'}
          </Alert>
        )}
        <ResourceList config={MY_REQUESTS} url="/api/v2/service_requests/?mine=true" refetchInterval={followRequests} />
      </PageSection>
    </>
  );
}
