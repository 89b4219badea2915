import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';
import { ApiError } from '../api/errors';
import type { AnyResource } from '../api/types';

/**
 * Saves an object of a resource (POST to add, PATCH to edit), then opens its page. A 400 answer's
 * messages are kept by field; `placed` says which fields the form shows, the rest go to `failure`.
 */
export function useSave(resourceKey: string, object: AnyResource | undefined, placed: (field: string) => boolean) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<unknown>(null);

  const save = async (body: Record<string, unknown>) => {
    setSaving(true);
    setFailure(null);
    setErrors({});
    setAnswer(null);
    try {
      const saved = object ? await http.patch<AnyResource>(object.url, body) : await http.post<AnyResource>(`/api/v2/${resourceKey}/`, body);
      await queryClient.invalidateQueries();
      navigate(`/${resourceKey}/${saved.id}`);
    } catch (err) {
      setAnswer(err);
      if (err instanceof ApiError && err.status === 400) {
        const byField = err.fieldErrors;
        setErrors(byField);
        if (!Object.keys(byField).length || Object.keys(byField).some((k) => !placed(k))) setFailure(err);
      } else setFailure(err);
    } finally {
      setSaving(false);
    }
  };
  return { save, saving, failure, errors, answer };
}
