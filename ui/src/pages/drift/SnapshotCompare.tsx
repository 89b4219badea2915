import { useState } from 'react';
import { Button, EmptyState, EmptyStateBody, Flex, FlexItem, FormGroup, FormSelect, FormSelectOption, LabelGroup, Title } from '@patternfly/react-core';
import { useMutation } from '@tanstack/react-query';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';

type Snapshot = ResourceObject<'fact_snapshots'>;
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { formatDate } from '../../components/cells';
import { BeforeAfter } from './BeforeAfter';
import { CategoryLabel, SeverityLabel } from './DriftLabels';
import { compareSnapshots } from './drift-api';

/** The newest snapshots a host keeps are few (retention keeps 90 days); one page of them is plenty to pick from. */
const SNAPSHOTS_SHOWN = 200;

const snapshotLabel = (s: Snapshot) => {
  const job = s.summary_fields?.job as { id: number; name?: string } | undefined;
  return `${formatDate(s.captured_at)}${job ? ` · job ${job.id}` : ''} · ${String(s.facts_hash ?? '').slice(0, 8)}`;
};

/** Picks two of the host's fact snapshots and shows every fact that differs between them. */
export function SnapshotCompare({ host }: { host: ResourceObject<'hosts'> }) {
  const url = withQuery('/api/v2/fact_snapshots/', { host: host.id, order_by: '-captured_at', page_size: SNAPSHOTS_SHOWN });
  const snapshots = usePage<Snapshot>(url);
  const [picked, setPicked] = useState<{ a?: string; b?: string }>({});
  const comparison = useMutation({ mutationFn: ({ a, b }: { a: number; b: number }) => compareSnapshots(a, b) });

  if (snapshots.isPending) return <Loading />;
  if (snapshots.error) return <ErrorAlert error={snapshots.error} />;
  const list = snapshots.data.results;
  if (list.length < 2) {
    return (
      <EmptyState titleText="Nothing to compare yet" headingLevel="h3">
        <EmptyStateBody>{list.length ? 'This host has one fact snapshot, its baseline.' : 'This host has no fact snapshot.'} Comparing takes two.</EmptyStateBody>
      </EmptyState>
    );
  }
  // By default the newest snapshot against the one before it.
  const a = picked.a ?? String(list[1].id);
  const b = picked.b ?? String(list[0].id);
  const select = (side: 'a' | 'b', label: string) => (
    <FormGroup label={label} fieldId={`snapshot-${side}`}>
      <FormSelect id={`snapshot-${side}`} value={side === 'a' ? a : b} onChange={(_e, v) => {
          setPicked((p) => ({ ...p, [side]: v }));
          comparison.reset();
        }}>
        {list.map((s) => <FormSelectOption key={s.id} value={String(s.id)} label={snapshotLabel(s)} />)}
      </FormSelect>
    </FormGroup>
  );
  const result = comparison.data;
  return (
    <>
      <Flex alignItems={{ default: 'alignItemsFlexEnd' }} spaceItems={{ default: 'spaceItemsMd' }}>
        <FlexItem>{select('a', 'From snapshot')}</FlexItem>
        <FlexItem>{select('b', 'To snapshot')}</FlexItem>
        <FlexItem>
          <Button variant="secondary" onClick={() => comparison.mutate({ a: Number(a), b: Number(b) })} isLoading={comparison.isPending} isDisabled={comparison.isPending || a === b}>
            Compare
          </Button>
        </FlexItem>
      </Flex>
      <ErrorAlert error={comparison.error} title="Not compared" />
      {result && (
        <section aria-label="Comparison" data-diff-count={result.diff_count} style={{ marginTop: '1rem' }}>
          <p>{result.diff_count === 0 ? 'The two snapshots hold the same facts (changing ones such as uptime aside).' : `${result.diff_count} facts differ.`}</p>
          {result.diffs.map((diff) => (
            <div key={diff.fact_path} data-fact={diff.fact_path} style={{ marginTop: '1rem' }}>
              <Title headingLevel="h4" size="md">
                <span className="drover-mono">{diff.fact_path}</span>
              </Title>
              <LabelGroup aria-label={`${diff.fact_path} classification`}>
                <SeverityLabel severity={diff.severity} />
                <CategoryLabel category={diff.category} />
              </LabelGroup>
              <span className="drover-subtle"> {diff.summary}</span>
              <BeforeAfter detail={diff.detail} label={`${diff.fact_path} before and after`} />
            </div>
          ))}
        </section>
      )}
    </>
  );
}
