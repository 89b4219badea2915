import { useQuery } from '@tanstack/react-query';
import { http } from '../api/client';
import type { AnyResource, Me, OptionsDoc } from '../api/types';
import type { Page } from '../api/client';

/** OPTIONS of a URL: field metadata, and whether the caller may POST (create) there. */
export function useOptions(url: string | undefined) {
  return useQuery({ queryKey: ['options', url], queryFn: () => http.options<OptionsDoc>(url!), enabled: !!url, staleTime: 60_000 });
}

/** The object at `url`, as the type of its resource when the caller knows it. */
export function useObject<T = AnyResource>(url: string | undefined, refetchInterval?: number | false) {
  return useQuery({ queryKey: [url], queryFn: () => http.get<T>(url!), enabled: !!url, refetchInterval });
}

/** How often a list is read again: every so many ms, or as its last page says (a list that follows what is going on). */
export type ListRefetch<T = AnyResource> = number | false | ((page: Page<T> | undefined) => number | false);

export function usePage<T = AnyResource>(url: string | undefined, refetchInterval?: ListRefetch<T>) {
  return useQuery({
    queryKey: [url],
    queryFn: () => http.get<Page<T>>(url!),
    enabled: !!url,
    refetchInterval: typeof refetchInterval === 'function' ? (query) => refetchInterval(query.state.data) : refetchInterval,
    placeholderData: (previous) => previous,
  });
}

export function useMe() {
  return useQuery({
    queryKey: ['/api/v2/me/'],
    queryFn: async () => (await http.get<Page<Me>>('/api/v2/me/')).results[0],
    staleTime: 60_000,
    retry: false,
  });
}
