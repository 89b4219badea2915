import { Suspense } from 'react';
import { useParams } from 'react-router';
import { PageSection } from '@patternfly/react-core';
import { RoutedTabs } from '../../components/RoutedTabs';
import { resourceConfig } from '../../resources/registry';
import type { AnyResource } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { useObject } from '../../hooks/api-hooks';
import { ResourceDetail } from '../../components/ResourceDetail';
import { ResourceList } from '../../components/ResourceList';
import { RowActions } from '../../components/RowActions';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { lazyOnce } from '../../components/lazy-cache';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { DetailHeader } from '../../components/DetailHeader';
import { NotFound } from '../NotFound';

/** /<resource>/<id>[/<tab>]: details, actions the caller may take, and the resource's tabs. */
export default function DetailPage() {
  const { resource = '', id = '' } = useParams();
  const config = resourceConfig(resource);
  const object = useObject(config ? `/api/v2/${config.key}/${id}/` : undefined);
  // A page of its own starts loading beside the object rather than after it.
  if (config?.detailPage) void config.detailPage();
  if (!config) return <NotFound />;
  if (object.isPending) return <Loading />;
  if (object.error || !object.data) return <PageSection><ErrorAlert error={object.error} /></PageSection>;
  if (config.detailPage) {
    const Custom = lazyOnce(config.detailPage);
    return (
      <Suspense fallback={<Loading />}>
        <Custom object={object.data} config={config} />
      </Suspense>
    );
  }
  return <GenericDetail config={config} object={object.data} />;
}

const nameOf = (o: AnyResource) => String(o.name ?? o.username ?? o.hostname ?? `#${o.id}`);

function GenericDetail({ config, object }: { config: ResourceConfig; object: AnyResource }) {
  const tabs = (config.tabs ?? []).filter((t) => !t.related || object.related?.[t.related]);
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={object} />
        <DetailHeader title={nameOf(object)} actions={<RowActions config={config} object={object} variant="detail" />} />
      </PageSection>
      <PageSection>
        <RoutedTabs
          base={`/${config.key}/${object.id}`}
          label={`${config.singular} sections`}
          tabs={[
            { key: 'details', label: 'Details', content: () => <Details config={config} object={object} /> },
            ...tabs.map((t) => ({ key: t.key, label: t.label, content: () => <TabContent config={config} object={object} tabKey={t.key} /> })),
          ]}
        />
      </PageSection>
    </>
  );
}

function Details({ config, object }: { config: ResourceConfig; object: AnyResource }) {
  const Extra = config.detailExtra ? lazyOnce(config.detailExtra) : null;
  return (
    <>
      <ResourceDetail object={object} fields={config.detailFields} />
      {Extra && (
        <Suspense fallback={<Loading />}>
          <Extra object={object} />
        </Suspense>
      )}
    </>
  );
}

function TabContent({ config, object, tabKey }: { config: ResourceConfig; object: AnyResource; tabKey: string }) {
  const tab = config.tabs?.find((t) => t.key === tabKey);
  if (!tab) return null;
  if (tab.component) {
    const Component = lazyOnce(tab.component);
    return (
      <Suspense fallback={<Loading />}>
        <Component object={object} />
      </Suspense>
    );
  }
  const related = resourceConfig(tab.resource ?? tab.key);
  if (!related || !tab.related) return null;
  // Adding from a parent's tab fills in the parent, by its type (an inventory's host, an organization's team).
  const parentField = object.type;
  return <ResourceList config={related} url={object.related[tab.related]} addQuery={{ [parentField]: object.id }} refetchInterval={related.detailPage ? 5_000 : false} />;
}
