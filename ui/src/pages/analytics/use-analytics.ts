import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { http, withQuery } from '../../api/client';
import type { ApiAnswer } from '../../api/types';

export type Endpoint = 'job_trends' | 'success_rate' | 'top_templates' | 'busiest_hosts' | 'host_coverage' | 'failure_analysis' | 'time_savings';
export type AnalyticsAnswer<E extends Endpoint> = ApiAnswer<`/api/v2/svc_analytics/${E}/`>;

/** One question of /api/v2/svc_analytics/ (docs/analytics.md), the last answer kept on screen while the next is asked. */
export function useAnalytics<E extends Endpoint>(endpoint: E, query: Record<string, string | number>) {
  const url = withQuery(`/api/v2/svc_analytics/${endpoint}/`, query);
  return useQuery({ queryKey: ['svc_analytics', url], queryFn: () => http.get<AnalyticsAnswer<E>>(url), placeholderData: keepPreviousData });
}
