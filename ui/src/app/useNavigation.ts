import { useQueries } from '@tanstack/react-query';
import { http, withQuery, type Page } from '../api/client';
import { ApiError } from '../api/errors';
import { NAVIGATION, sectionList, type NavGroup } from './navigation';

/** What a section's list told about the user: refused, or how many objects it shows. */
type Probe = { refused: true } | { refused: false; count: number | undefined };

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

async function probe(userId: number, path: string, url: string): Promise<Probe> {
  let answer: Probe;
  try {
    const page = await http.get<Partial<Page<unknown>>>(withQuery(url, { page_size: 1 }));
    answer = { refused: false, count: page.count };
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    answer = { refused: true };
  }
  sessionStorage.setItem(storageKey(userId, path), JSON.stringify(answer));
  return answer;
}

/**
 * The sidebar as the API lets this user use it: each section's list is asked once per session of
 * the browser tab (for one object); a list the API refuses (403) is left out, and so is an empty one of a group that
 * hides its empty sections. Sections appear once their answer is in; one whose list failed otherwise
 * stays (its page shows the failure).
 */
export function useNavigation(userId: number | undefined): NavGroup[] {
  const items = NAVIGATION.flatMap((group) => group.items);
  const answers = useQueries({
    queries: items.map((item) => ({
      queryKey: ['navigation', userId, item.path],
      queryFn: () => probe(userId!, item.path, sectionList(item.path)!),
      initialData: () => remembered(userId, item.path),
      enabled: userId !== undefined && sectionList(item.path) !== undefined,
      staleTime: Infinity,
      retry: false,
    })),
  });
  const shown = new Set(
    items
      .filter((item, i) => {
        if (!sectionList(item.path)) return true;
        const { data, isError } = answers[i];
        if (isError) return true;
        if (!data || data.refused) return false;
        const group = NAVIGATION.find((g) => g.items.includes(item));
        return !(group?.hideWhenEmpty && data.count === 0);
      })
      .map((item) => item.path),
  );
  return NAVIGATION.map((group) => ({ ...group, items: group.items.filter((item) => shown.has(item.path)) })).filter((group) => group.items.length > 0);
}
