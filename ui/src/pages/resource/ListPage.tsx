import { Suspense } from 'react';
import { useParams } from 'react-router';
import { PageSection, Title } from '@patternfly/react-core';
import { resourceConfig } from '../../resources/registry';
import { ResourceList } from '../../components/ResourceList';
import { lazyOnce } from '../../components/lazy-cache';
import { NotFound } from '../NotFound';

export default function ListPage({ resource }: { resource?: string }) {
  const params = useParams();
  const config = resourceConfig(resource ?? params.resource ?? '');
  if (!config) return <NotFound />;
  const Header = config.listHeader ? lazyOnce(config.listHeader) : null;
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">{config.label}</Title>
      </PageSection>
      <PageSection>
        {Header && (
          <Suspense fallback={null}>
            <Header />
          </Suspense>
        )}
        <ResourceList config={config} refetchInterval={config.detailPage ? 5_000 : false} />
      </PageSection>
    </>
  );
}
