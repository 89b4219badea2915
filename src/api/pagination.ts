import { notFound } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 200;

export interface Page {
  page: number;
  size: number;
}

type Query = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);

/** Reads page and page_size: a bad page is 404 "Invalid page." (as AWX); page_size is capped at 200. */
export function readPage(query: Query): Page {
  const rawPage = first(query.page);
  let page = 1;
  if (rawPage !== undefined) {
    if (!/^\d+$/.test(rawPage) || Number(rawPage) < 1 || Number(rawPage) > 1_000_000_000) throw notFound('Invalid page.');
    page = Number(rawPage);
  }
  const rawSize = first(query.page_size);
  let size = DEFAULT_PAGE_SIZE;
  if (rawSize !== undefined && /^\d+$/.test(rawSize) && Number(rawSize) > 0) size = Math.min(Number(rawSize), MAX_PAGE_SIZE);
  return { page, size };
}

/** A link to another page of the same list, keeping every other parameter. */
function pageLink(path: string, query: Query, page: number, size: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === 'page' || key === 'page_size' || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
  }
  if (query.page_size !== undefined) params.set('page_size', String(size));
  if (page > 1) params.set('page', String(page));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export interface ListEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function envelope<T>(path: string, query: Query, page: Page, count: number, results: T[]): ListEnvelope<T> {
  const pages = Math.max(1, Math.ceil(count / page.size));
  if (page.page > pages) throw notFound('Invalid page.');
  return {
    count,
    next: page.page < pages ? pageLink(path, query, page.page + 1, page.size) : null,
    previous: page.page > 1 ? pageLink(path, query, page.page - 1, page.size) : null,
    results,
  };
}
