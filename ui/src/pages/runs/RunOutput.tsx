import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, SearchInput } from '@patternfly/react-core';
import { AngleDoubleDownIcon, ExclamationCircleIcon, ExpandIcon } from '@patternfly/react-icons';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Run } from './run-kinds';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { EventDetailModal } from './EventDetailModal';
import { HostStatusChips } from './HostStatusChips';
import { OutputRow } from './OutputRow';
import { isActive } from './run-kinds';
import { useOutputSearch } from './useOutputSearch';
import { useRunOutput } from './useRunOutput';
import './output.css';

const LINE_HEIGHT = 20;

/** A run's output, virtualised: live while the run goes on, read a chunk at a time as it is scrolled. */
export default function RunOutput({ run }: { run: Run }) {
  const store = useRunOutput(run);
  const scroller = useRef<HTMLDivElement>(null);
  const live = isActive(run) || run.event_processing_finished === false;
  const [following, setFollowing] = useState(live);
  const [target, setTarget] = useState<number | null>(null);
  const [focusLine, setFocusLine] = useState(-1);
  const [detail, setDetail] = useState<number | null>(null);
  const [notice, setNotice] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);
  const lastTop = useRef(0);

  const rowCount = store.rowCount;
  const virtualizer = useVirtualizer({ count: rowCount, getScrollElement: () => scroller.current, estimateSize: () => LINE_HEIGHT, overscan: 30 });
  const items = virtualizer.getVirtualItems();
  const firstRow = items[0]?.index ?? 0;
  const lastRow = items[items.length - 1]?.index ?? 0;

  const showLine = useCallback(
    (line: number) => {
      store.reveal(line);
      setFollowing(false);
      setTarget(line);
      setFocusLine(line);
    },
    [store],
  );
  const search = useOutputSearch(store, showLine);

  useEffect(() => {
    if (rowCount) store.ensureLines(store.rowToLine(firstRow), store.rowToLine(lastRow) + 1);
  }, [store, store.version, firstRow, lastRow, rowCount]);

  useEffect(() => {
    if (following && rowCount) virtualizer.scrollToIndex(rowCount - 1, { align: 'end' });
  }, [following, rowCount, store.version, virtualizer]);

  useEffect(() => {
    if (target === null) return;
    virtualizer.scrollToIndex(store.lineToRow(target), { align: 'center' });
    setTarget(null);
  }, [target, store, store.version, virtualizer]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < LINE_HEIGHT * 2;
    if (following && !atEnd && el.scrollTop < lastTop.current) setFollowing(false);
    lastTop.current = el.scrollTop;
  };

  const firstFailure = async () => {
    setNotice('');
    setActionError(null);
    try {
      const line = await store.firstFailureLine();
      if (line === undefined) setNotice('No host failed.');
      else showLine(line);
    } catch (err) {
      setActionError(err);
    }
  };

  const toggle = useCallback((counter: number) => void store.toggleFold(counter).catch(setActionError), [store]);
  const counts = run.playbook_counts as { play_count?: number; task_count?: number } | undefined;

  return (
    <div>
      <div className="drover-output-toolbar" role="toolbar" aria-label="Output tools">
        <SearchInput
          className="drover-output-search"
          aria-label="Search the output"
          placeholder="Search the output"
          value={search.term}
          onChange={(_e, value) => search.setTerm(value)}
          onClear={() => search.setTerm('')}
          onSearch={() => search.next()}
          resultsCountContext=" matches"
          resultsCount={search.term ? (search.searching && !search.matches.length ? '…' : `${search.matches.length ? search.index + 1 : 0} / ${search.matches.length}${search.more ? '+' : ''}`) : undefined}
          onNextClick={() => search.next()}
          onPreviousClick={() => search.previous()}
          isNextNavigationButtonDisabled={!search.matches.length}
          isPreviousNavigationButtonDisabled={!search.matches.length}
        />
        <Button variant="secondary" icon={<ExclamationCircleIcon />} onClick={() => void firstFailure()}>
          First failure
        </Button>
        {store.hasFolds && (
          <Button variant="secondary" icon={<ExpandIcon />} onClick={() => store.unfoldAll()}>
            Expand all
          </Button>
        )}
        {live && !following && (
          <Button variant="primary" icon={<AngleDoubleDownIcon />} onClick={() => setFollowing(true)}>
            Follow
          </Button>
        )}
        <HostStatusChips run={run} />
        <span className="drover-output-counts" aria-live="polite">
          {notice || `${store.totalLines.toLocaleString()} lines${counts?.play_count ? `, ${counts.play_count} plays, ${counts.task_count ?? 0} tasks` : ''}`}
        </span>
      </div>
      <ErrorAlert error={store.error ?? actionError ?? search.error} />
      <div ref={scroller} className="drover-output" tabIndex={0} role="log" aria-label="Run output" aria-live="off" onScroll={onScroll}>
        {rowCount === 0 ? (
          <div className="drover-output-empty">{live ? <Loading label="Waiting for output" /> : store.version === 0 ? <Loading /> : 'This run wrote no output.'}</div>
        ) : (
          <div className="drover-output-rows" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const number = store.rowToLine(item.index);
              const line = store.lines.get(number);
              const fold = line && store.foldable(line) ? (store.isFolded(line.counter) ? 'folded' : 'open') : null;
              return (
                <OutputRow
                  key={number}
                  number={number}
                  line={line}
                  top={item.start}
                  term={search.term.trim()}
                  current={number === focusLine}
                  fold={fold}
                  onToggle={toggle}
                  onOpen={setDetail}
                />
              );
            })}
          </div>
        )}
      </div>
      {detail !== null && <EventDetailModal store={store} counter={detail} onClose={() => setDetail(null)} />}
    </div>
  );
}
