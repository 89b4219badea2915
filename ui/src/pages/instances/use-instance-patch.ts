import { http } from '../../api/client';
import type { ApiBody, ResourceObject } from '../../api/types';
import { objectUrl } from '../../api/object-url';
import { useServerChange } from '../../hooks/use-server-change';

type InstanceChange = ApiBody<'/api/v2/instances/{id}/', 'patch'>;

/** PATCHes fields of an instance, then reads every query again so lists and bars show the new capacity. */
export function useInstancePatch(instance: ResourceObject<'instances'>) {
  const { busy, error, change } = useServerChange();
  const patch = async (fields: InstanceChange) => {
    await change(() => http.patch(objectUrl(instance), fields));
  };
  return { busy, error, patch, mayChange: !!instance.summary_fields?.user_capabilities?.edit };
}
