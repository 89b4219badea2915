import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ApiBody, ResourceObject } from '../../api/types';
import { objectUrl } from '../../api/object-url';

type InstanceChange = ApiBody<'/api/v2/instances/{id}/', 'patch'>;

/** PATCHes fields of an instance, then reads every query again so lists and bars show the new capacity. */
export function useInstancePatch(instance: ResourceObject<'instances'>) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const patch = async (change: InstanceChange) => {
    setBusy(true);
    setError(null);
    try {
      await http.patch(objectUrl(instance), change);
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, patch, mayChange: !!instance.summary_fields?.user_capabilities?.edit };
}
