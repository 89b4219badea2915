import { withQuery } from '../../api/client';

/** Lines read per request: fewer than a page of events (every event in the range has a line in it). */
export const CHUNK_LINES = 150;
export const PAGE_SIZE = 200;

/** Where each run kind's events are listed, by its path in the console (AWX: job_events/ for jobs). */
export const EVENTS_PATHS: Record<string, string> = {
  jobs: 'job_events',
  ad_hoc_commands: 'events',
  project_updates: 'events',
  inventory_updates: 'events',
  system_jobs: 'events',
};

export const eventsQuery = (eventsUrl: string, params: Record<string, string | number>) => withQuery(eventsUrl, { no_truncate: 1, ...params });

/** The events holding lines [chunk × CHUNK_LINES, (chunk + 1) × CHUNK_LINES). */
export function chunkUrl(eventsUrl: string, chunk: number) {
  const start = chunk * CHUNK_LINES;
  return eventsQuery(eventsUrl, { order_by: 'counter', start_line__lt: start + CHUNK_LINES, end_line__gt: start, page_size: PAGE_SIZE });
}

/** The last event: how many lines and events there are so far. */
export const lastEventUrl = (eventsUrl: string) => eventsQuery(eventsUrl, { order_by: '-counter', page_size: 1 });
