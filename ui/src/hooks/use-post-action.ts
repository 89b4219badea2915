import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';

/**
 * A button's POST to an object's action (acknowledge/, enable/, approve/...): busy while it runs, its
 * error kept to show, and every query read again once it is done so the page shows the new state.
 */
export function usePostAction() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const post = async (url: string) => {
    setBusy(true);
    setError(null);
    try {
      await http.post(url, {});
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, post };
}
