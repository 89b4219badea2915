import { useQuery } from '@tanstack/react-query';
import { http, type Page } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import type { ScannedSource } from '../../components/ScanFindings';

/**
 * The repository a scan read, for links to its files: the project's scm_url at the scanned
 * revision. One who may see the run but not the project gets no links (the files stay plain text):
 * the project is asked of the list, which leaves out what the caller may not see instead of refusing.
 */
export function useScannedSource(project: number | null | undefined, revision: unknown): ScannedSource {
  const url = project ? `/api/v2/projects/?id=${project}` : undefined;
  const answer = useQuery({
    queryKey: [url],
    queryFn: () => http.get<Page<ResourceObject<'projects'>>>(url!),
    enabled: !!url,
    staleTime: 60_000,
  });
  return { scmUrl: answer.data?.results[0]?.scm_url, revision };
}
