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
      <ToolbarItem>
        <TextInput type="date" aria-label="Export from" value={from} onChange={(_e, v) => setFrom(v)} max={to || undefined} />
      </ToolbarItem>
      <ToolbarItem>
        <TextInput type="date" aria-label="Export to" value={to} onChange={(_e, v) => setTo(v)} min={from || undefined} />
      </ToolbarItem>
      <ToolbarItem>
        <Button variant="secondary" component="a" href={href} download icon={<DownloadIcon />}>Export CSV</Button>
      </ToolbarItem>
    </ToolbarGroup>
  );
}
