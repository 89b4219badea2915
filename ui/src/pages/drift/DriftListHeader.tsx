import { Toolbar, ToolbarContent } from '@patternfly/react-core';
import { DriftSummaryCards } from './DriftSummaryCards';
import { DriftFilters } from './DriftFilters';
import { DriftExport } from './DriftExport';
import './drift.css';

/** Above the drift list: the week's counts, the drift filters, and the CSV export of what they select. */
export default function DriftListHeader() {
  return (
    <>
      <DriftSummaryCards />
      <DriftFilters />
      <Toolbar>
        <ToolbarContent>
          <DriftExport />
        </ToolbarContent>
      </Toolbar>
    </>
  );
}
