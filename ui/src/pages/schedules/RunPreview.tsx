import { useQuery } from '@tanstack/react-query';
import { Alert, List, ListItem, Spinner, Title } from '@patternfly/react-core';
import { http } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useDebounced } from '../../hooks/use-debounced';

interface PreviewAnswer {
  local: string[];
  utc: string[];
}

/** "2025-01-06T09:00:00+01:00" as the weekday, date and time it names in its zone. */
export function describeOccurrence(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso);
  if (!m) return iso;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const weekday = day.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
  return `${weekday}, ${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}`;
}

/** The next runs the API computes for an rrule (POST /api/v2/schedules/preview/), or its message about the rule. */
export function RunPreview({ rrule, timezone }: { rrule: string; timezone: string }) {
  const text = useDebounced(rrule, 300);
  const preview = useQuery({
    queryKey: ['schedule-preview', text],
    queryFn: () => http.post<PreviewAnswer>('/api/v2/schedules/preview/', { rrule: text }),
    enabled: !!text,
    retry: false,
  });
  const error = preview.error instanceof ApiError ? preview.error.fieldErrors.rrule ?? preview.error.message : preview.error ? String(preview.error) : null;
  return (
    <section aria-label="Next runs" aria-live="polite">
      <Title headingLevel="h3" size="md">Next runs ({timezone})</Title>
      {preview.isFetching && <Spinner size="md" aria-label="Computing the next runs" />}
      {error ? (
        <Alert variant="danger" isInline isPlain title="The rule is not valid" data-testid="preview-error">{error}</Alert>
      ) : preview.data && preview.data.local.length === 0 ? (
        <p>The rule names no future run.</p>
      ) : (
        <List isPlain data-testid="schedule-preview">
          {(preview.data?.local ?? []).map((iso) => <ListItem key={iso} data-time={iso}>{describeOccurrence(iso)}</ListItem>)}
        </List>
      )}
    </section>
  );
}
