import { useQuery } from '@tanstack/react-query';
import { http } from '../../../api/client';
import { ApiError } from '../../../api/errors';
import type { LoadedChoices } from './SurveyFields';
import { isDynamic, type ResolvedChoices, type SurveyQuestion } from './survey-types';

/**
 * The choices of a survey's dynamic questions, asked of the template once the survey shows; `refresh`
 * asks again. `staticWhenRefused`: one who may not launch the template (a catalog's requester, who
 * answers its survey without a role on it) is refused them, and gets the questions' static choices.
 */
export function useDynamicChoices(templateUrl: string, spec: SurveyQuestion[], { staticWhenRefused = false } = {}): LoadedChoices | undefined {
  const variables = spec.filter(isDynamic).map((q) => q.variable);
  const query = useQuery({
    queryKey: ['dynamic-choices', templateUrl, variables],
    queryFn: () => http.post<Record<string, ResolvedChoices>>(`${templateUrl}survey_spec/dynamic_choices/`, { variables }),
    enabled: variables.length > 0,
    staleTime: Infinity,
    retry: false,
  });
  if (!variables.length) return undefined;
  if (staticWhenRefused && query.error instanceof ApiError && query.error.status === 403) return undefined;
  const failed = query.error ? String((query.error as Error).message ?? query.error) : undefined;
  const byVariable = query.data ?? (failed ? Object.fromEntries(variables.map((v) => [v, { choices: [], source_type: '', error: failed }])) : {});
  return { byVariable, loading: query.isFetching, refresh: () => void query.refetch() };
}
