import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';

/**
 * A change a control asks the server for (a POST to an action, a PATCH of a field, a new object):
 * busy while it runs, its error kept to show, and every query read again once it is done so the
 * page shows the new state. `change` answers what the server answered, or undefined when it failed.
 */
export function useServerChange() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const change = async <T,>(send: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      const answer = await send();
      await queryClient.invalidateQueries();
      return answer;
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, change };
}
