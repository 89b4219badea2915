import { useEffect, useRef, useState } from 'react';
import { stripAnsi } from './ansi';
import type { OutputEvent, OutputStore } from './output-store';

export interface OutputSearch {
  term: string;
  setTerm: (term: string) => void;
  /** Lines that hold the term, in order, as far as read. */
  matches: number[];
  index: number;
  more: boolean;
  searching: boolean;
  error: unknown;
  next: () => void;
  previous: () => void;
}

const DEBOUNCE_MS = 300;

function matchingLines(events: OutputEvent[], term: string): number[] {
  const needle = term.toLowerCase();
  const lines: number[] = [];
  for (const event of events) {
    const texts = String(event.stdout ?? '').split(/\r?\n/);
    texts.forEach((text, i) => {
      if (event.start_line + i < event.end_line && stripAnsi(text).toLowerCase().includes(needle)) lines.push(event.start_line + i);
    });
  }
  return lines;
}

/**
 * Search in the whole output, not only the lines read so far: the service finds the events whose
 * output holds the term, a page at a time, and next/previous walk through their matching lines.
 */
export function useOutputSearch(store: OutputStore, onMatch: (line: number) => void): OutputSearch {
  const [term, setTerm] = useState('');
  const [matches, setMatches] = useState<number[]>([]);
  const [index, setIndex] = useState(-1);
  const [page, setPage] = useState(0);
  const [more, setMore] = useState(false);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);

  const load = async (query: string, pageNumber: number, previous: number[]) => {
    const mine = generation.current;
    setSearching(true);
    try {
      const result = await store.searchPage(query, pageNumber);
      if (mine !== generation.current) return null;
      const found = [...new Set([...previous, ...matchingLines(result.results, query)])].sort((a, b) => a - b);
      setMatches(found);
      setPage(pageNumber);
      setMore(!!result.next);
      setError(null);
      return found;
    } catch (err) {
      if (mine === generation.current) setError(err);
      return null;
    } finally {
      if (mine === generation.current) setSearching(false);
    }
  };

  useEffect(() => {
    generation.current += 1;
    setMatches([]);
    setIndex(-1);
    setMore(false);
    if (!term.trim()) return;
    const timer = setTimeout(async () => {
      const found = await load(term, 1, []);
      if (found?.length) {
        setIndex(0);
        onMatch(found[0]);
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [term, store]);

  const go = (to: number, list = matches) => {
    setIndex(to);
    onMatch(list[to]);
  };

  const next = async () => {
    if (!matches.length) return;
    if (index + 1 < matches.length) return go(index + 1);
    if (more) {
      const found = await load(term, page + 1, matches);
      if (found && found.length > matches.length) return go(index + 1, found);
    }
    go(0);
  };
  const previous = () => {
    if (matches.length) go(index > 0 ? index - 1 : matches.length - 1);
  };

  return { term, setTerm, matches, index, more, searching, error, next: () => void next(), previous };
}
