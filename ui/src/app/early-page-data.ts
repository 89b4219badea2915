import { startEarly } from '../api/early';
import { EVENTS_PATHS, chunkUrl, lastEventUrl } from '../pages/runs/output-queries';

const OBJECT_PAGE = /^\/([a-z_]+)\/(\d+)(?:\/([a-z_]+))?\/?$/;
/** Pages of an object whose path is not its API list's (a catalog item's request form). */
const OBJECT_LISTS: Record<string, string> = { catalog: 'service_catalog_items' };

/**
 * Starts the requests the page at `pathname` will make first, beside the loading of its code:
 * the signed-in user, the object of a detail page, and for a run's output its first lines and
 * its last event (with the output view's code).
 */
export function requestPageData(pathname: string) {
  if (pathname.startsWith('/login')) return;
  startEarly('/api/v2/me/');
  const match = OBJECT_PAGE.exec(pathname);
  if (!match) return;
  const [, resource, id, tab] = match;
  if (tab === 'edit') return;
  startEarly(`/api/v2/${OBJECT_LISTS[resource] ?? resource}/${id}/`);
  const events = EVENTS_PATHS[resource];
  if (!events || (tab && tab !== 'output')) return;
  const eventsUrl = `/api/v2/${resource}/${id}/${events}/`;
  startEarly(chunkUrl(eventsUrl, 0));
  startEarly(lastEventUrl(eventsUrl));
  void import('../pages/runs/RunPage');
}
