import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button, TextInput, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { DownloadIcon } from '@patternfly/react-icons';
import { EXPORTED_FILTERS, exportUrl } from './drift-api';

/** Downloads the drift the list's filters select as CSV, optionally within a range of days. */
export function DriftExport() {
  const [params] = useSearchParams();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const filters = Object.fromEntries(EXPORTED_FILTERS.map((name) => [name, params.get(name)]));
  const href = exportUrl({ ...filters, date_from: from, date_to: to });
  return (
    <ToolbarGroup>
      <ToolbarItem className="drover-toolbar-label">
        <label htmlFor="drift-export-from">Export from</label>
      </ToolbarItem>
      <ToolbarItem>
        <TextInput id="drift-export-from" aria-label="Export from" type="date" value={from} onChange={(_e, v) => setFrom(v)} max={to || undefined} />
      </ToolbarItem>
      <ToolbarItem className="drover-toolbar-label">
        <label htmlFor="drift-export-to">to</label>
      </ToolbarItem>
      <ToolbarItem>
        <TextInput id="drift-export-to" aria-label="Export to" type="date" value={to} onChange={(_e, v) => setTo(v)} min={from || undefined} />
      </ToolbarItem>
      <ToolbarItem>
        <Button variant="secondary" component="a" href={href} download icon={<DownloadIcon />}>Export CSV</Button>
      </ToolbarItem>
    </ToolbarGroup>
  );
}
