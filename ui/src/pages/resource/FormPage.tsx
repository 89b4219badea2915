import { Suspense } from 'react';
import { useParams } from 'react-router';
import { PageSection, Title } from '@patternfly/react-core';
import { resourceConfig } from '../../resources/registry';
import { ResourceForm } from '../../components/ResourceForm';
import { useObject } from '../../hooks/api-hooks';
import { lazyOnce } from '../../components/lazy-cache';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { NotFound } from '../NotFound';
import { Breadcrumbs } from '../../components/Breadcrumbs';

/** /<resource>/add and /<resource>/<id>/edit. */
export default function FormPage() {
  const { resource = '', id } = useParams();
  const config = resourceConfig(resource);
  const object = useObject(id && config ? `/api/v2/${config.key}/${id}/` : undefined);
  if (!config) return <NotFound />;
  if (id && object.isPending) return <Loading />;
  if (id && object.error) return <ErrorAlert error={object.error} />;
  const title = id ? `Edit ${String(object.data?.name ?? object.data?.username ?? config.singular)}` : `Add ${config.singular.toLowerCase()}`;
  const Custom = config.formPage ? lazyOnce(config.formPage) : null;
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={object.data} last={id ? 'Edit' : 'Add'} />
        <Title headingLevel="h1">{title}</Title>
      </PageSection>
      <PageSection>
        {Custom ? (
          <Suspense fallback={<Loading />}>
            <Custom config={config} object={object.data} />
          </Suspense>
        ) : (
          <ResourceForm config={config} object={object.data} />
        )}
      </PageSection>
    </>
  );
}
