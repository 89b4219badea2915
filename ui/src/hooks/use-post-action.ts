import { http } from '../api/client';
import { useServerChange } from './use-server-change';

/** A button's POST to an object's action (acknowledge/, enable/, approve/...), see useServerChange. */
export function usePostAction() {
  const { busy, error, change } = useServerChange();
  const post = async (url: string) => {
    await change(() => http.post(url, {}));
  };
  return { busy, error, post };
}
