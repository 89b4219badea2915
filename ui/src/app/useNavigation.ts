import { useQueries } from '@tanstack/react-query';
import { http, withQuery, type Page } from '../api/client';
import { ApiError } from '../api/errors';
import type { OptionsDoc } from '../api/types';
import { NAVIGATION, sectionList, type NavGroup, type NavItem } from './navigation';

/** What a section's list told about the user: refused, or how many objects it shows and whether they may add one. */
type Probe = { refused: true } | { refused: false; count: number | undefined; canAdd?: boolean };

// Kept for the browser tab's session, so opening a page by its address does not ask every list again.
const storageKey = (userId: number, path: string) => `drover-navigation:${userId}:${path}`;

function remembered(userId: number | undefined, path: string): Probe | undefined {
  if (userId === undefined) return undefined;
  try {
    const text = sessionStorage.getItem(storageKey(userId, path));
    return text ? (JSON.parse(text) as Probe) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the section needs to know if the user may add to its list (OPTIONS offers POST). */
const asksAdd = (item: Section, count: number | undefined) => item.only === 'to-adders' || (item.hideWhenEmpty && count === 0);

async function probe(userId: number, item: Section, url: string): Promise<Probe> {
  let answer: Probe;
  try {
    const page = await http.get<Partial<Page<unknown>>>(withQuery(url, { page_size: 1 }));
    // An empty list still leads somewhere for one who may add to it.
    const canAdd = asksAdd(item, page.count) ? !!(await http.options<OptionsDoc>(url)).actions?.POST : undefined;
    answer = { refused: false, count: page.count, canAdd };
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    answer = { refused: true };
  }
  sessionStorage.setItem(storageKey(userId, item.path), JSON.stringify(answer));
  return answer;
}

type Section = NavItem & { hideWhenEmpty: boolean };

function offered(item: Section, data: Probe): boolean {
  if (data.refused) return false;
  if (item.only === 'to-adders') return !!data.canAdd;
  if (item.only === 'when-some') return (data.count ?? 0) > 0;
  return !(item.hideWhenEmpty && data.count === 0 && !data.canAdd);
}

/**
 * The sidebar as the API lets this user use it: each section's list is asked once per session of
 * the browser tab (for one object), or every `refresh` for a section that says so. A list the API
 * refuses (403) is left out, and so is an empty one of a group that hides its empty sections,
 * unless the user may add to it; a section `only` offered in some cases follows them. Sections
 * appear once their answer is in; one whose list failed otherwise stays (its page shows the failure).
 */
export function useNavigation(userId: number | undefined): NavGroup[] {
  const items: Section[] = NAVIGATION.flatMap((group) => group.items.map((item) => ({ ...item, hideWhenEmpty: !!group.hideWhenEmpty })));
  const answers = useQueries({
    queries: items.map((item) => ({
      queryKey: ['navigation', userId, item.path],
      queryFn: () => probe(userId!, item, sectionList(item)!),
      initialData: () => remembered(userId, item.path),
      enabled: userId !== undefined && sectionList(item) !== undefined,
      staleTime: item.refresh ?? Infinity,
      refetchInterval: item.refresh ?? false,
      retry: false,
    })),
  });
  const shown = new Set(
    items
      .filter((item, i) => {
        if (!sectionList(item)) return true;
        const { data, isError } = answers[i];
        if (isError) return true;
        return !!data && offered(item, data);
      })
      .map((item) => item.path),
  );
  return NAVIGATION.map((group) => ({ ...group, items: group.items.filter((item) => shown.has(item.path)) })).filter((group) => group.items.length > 0);
}
