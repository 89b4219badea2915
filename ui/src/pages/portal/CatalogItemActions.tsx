import { Link } from 'react-router';
import { Button } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';

/** Request: the item's request form in the catalog, while the item is enabled. */
export default function CatalogItemActions({ object, variant }: { object: ResourceObject<'service_catalog_items'>; variant: 'row' | 'detail' }) {
  if (!object.enabled) return null;
  return (
    <Link to={`/catalog/${object.id}`} aria-label={`Request ${object.name}`}>
      <Button variant="secondary" size={variant === 'row' ? 'sm' : 'default'} component="span">Request</Button>
    </Link>
  );
}
