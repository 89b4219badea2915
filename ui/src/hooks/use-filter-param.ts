import { useSearchParams } from 'react-router';

/** The list's query parameters and a setter of one filter (empty removes it), back to the first page. */
export function useFilterParam(): [URLSearchParams, (name: string, value: string | number | null) => void] {
  const [params, setParams] = useSearchParams();
  const set = (name: string, value: string | number | null) => {
    const next = new URLSearchParams(params);
    if (value === null || value === '') next.delete(name);
    else next.set(name, String(value));
    next.delete('page');
    setParams(next);
  };
  return [params, set];
}
