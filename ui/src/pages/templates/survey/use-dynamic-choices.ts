import { useQuery } from '@tanstack/react-query';
import { http } from '../../../api/client';
import type { LoadedChoices } from './SurveyFields';
import { isDynamic, type ResolvedChoices, type SurveyQuestion } from './survey-types';

/** The choices of a survey's dynamic questions, asked of the template once the survey shows; `refresh` asks again. */
export function useDynamicChoices(templateUrl: string, spec: SurveyQuestion[]): LoadedChoices | undefined {
  const variables = spec.filter(isDynamic).map((q) => q.variable);
  const query = useQuery({
    queryKey: ['dynamic-choices', templateUrl, variables],
    queryFn: () => http.post<Record<string, ResolvedChoices>>(`${templateUrl}survey_spec/dynamic_choices/`, { variables }),
    enabled: variables.length > 0,
    staleTime: Infinity,
    retry: false,
  });
  if (!variables.length) return undefined;
  const failed = query.error ? String((query.error as Error).message ?? query.error) : undefined;
  const byVariable = query.data ?? (failed ? Object.fromEntries(variables.map((v) => [v, { choices: [], source_type: '', error: failed }])) : {});
  return { byVariable, loading: query.isFetching, refresh: () => void query.refetch() };
}
