import type { ResourceObject } from '../../api/types';
import { UpdateButton } from '../../components/UpdateButton';

/** Sync of an inventory source, for those who may update its inventory. */
export default function SourceActions({ object, variant }: { object: ResourceObject<'inventory_sources'>; variant: 'row' | 'detail' }) {
  return <UpdateButton object={object} variant={variant} runType="inventory_update" />;
}
