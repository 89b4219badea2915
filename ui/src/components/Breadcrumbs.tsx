import { Breadcrumb, BreadcrumbItem } from '@patternfly/react-core';
import { Link } from 'react-router';
import type { AnyResource } from '../api/types';
import type { ResourceConfig } from '../resources/types';

export function Breadcrumbs({ config, object, last }: { config: ResourceConfig; object?: AnyResource; last?: string }) {
  const name = object ? String(object.name ?? object.username ?? object.hostname ?? `#${object.id}`) : undefined;
  return (
    <Breadcrumb>
      <BreadcrumbItem render={() => <Link to={`/${config.key}`}>{config.label}</Link>} />
      {object && <BreadcrumbItem render={() => (last ? <Link to={`/${config.key}/${object.id}`}>{name}</Link> : <span aria-current="page">{name}</span>)} />}
      {last && <BreadcrumbItem isActive>{last}</BreadcrumbItem>}
    </Breadcrumb>
  );
}
