import type { ReactNode } from 'react';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';

/** A number as the analytics tables show it: a dash for none (`null`: nothing to divide by). */
export const figure = (value: number | null | undefined, unit = '') => (value === null || value === undefined ? '–' : `${value}${unit}`);

/**
 * The numbers of a chart as a table: read by screen readers always, shown on screen when `shown`
 * (the chart's card has a switch for it).
 */
export function FigureTable({ caption, columns, rows, shown }: { caption: string; columns: string[]; rows: ReactNode[][]; shown: boolean }) {
  return (
    <div className={shown ? undefined : 'pf-v6-screen-reader'}>
      <Table variant="compact" aria-label={caption}>
        <caption className="pf-v6-screen-reader">{caption}</caption>
        <Thead>
          <Tr>{columns.map((c) => <Th key={c}>{c}</Th>)}</Tr>
        </Thead>
        <Tbody>
          {rows.map((cells, i) => (
            <Tr key={i}>{cells.map((cell, k) => <Td key={k} dataLabel={columns[k]}>{cell}</Td>)}</Tr>
          ))}
        </Tbody>
      </Table>
    </div>
  );
}
