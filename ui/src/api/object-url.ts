import type { AnyResource } from './types';

/**
 * The API address of an object: its `url`, unless the resource has a field of that name holding
 * something else (an outbound webhook's target), when it is made from its type and id.
 */
export const objectUrl = (object: Pick<AnyResource, 'id' | 'type' | 'url'>) =>
  typeof object.url === 'string' && object.url.startsWith('/api/') ? object.url : `/api/v2/${object.type}s/${object.id}/`;
