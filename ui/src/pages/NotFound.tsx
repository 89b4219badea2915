import { EmptyState, EmptyStateBody, PageSection } from '@patternfly/react-core';
import { Link } from 'react-router';

export function NotFound() {
  return (
    <PageSection>
      <EmptyState titleText="Page not found" headingLevel="h1">
        <EmptyStateBody>
          Nothing lives at this address. Go to the <Link to="/">dashboard</Link>.
        </EmptyStateBody>
      </EmptyState>
    </PageSection>
  );
}

export default NotFound;
