import { useId, useState, type ReactNode } from 'react';
import { Card, CardBody, CardHeader, CardTitle, Flex, Switch } from '@patternfly/react-core';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';

/**
 * A card of the analytics page: its title, a switch showing the chart's table on screen (screen
 * readers have it always), the question's failure, a wait, or "nothing in this period".
 */
export function ChartCard({ title, controls, error, pending, empty, emptyText = 'No jobs finished in this period.', children }: {
  title: string;
  controls?: ReactNode;
  error: unknown;
  pending: boolean;
  empty: boolean;
  emptyText?: string;
  children: (tableShown: boolean) => ReactNode;
}) {
  const [tableShown, setTableShown] = useState(false);
  const id = useId();
  return (
    <Card component="section" aria-label={title}>
      <CardHeader>
        <Flex justifyContent={{ default: 'justifyContentSpaceBetween' }} style={{ width: '100%' }}>
          <CardTitle component="h2">{title}</CardTitle>
          <Flex spaceItems={{ default: 'spaceItemsMd' }} alignItems={{ default: 'alignItemsCenter' }}>
            {controls}
            <Switch id={`${id}-table`} label="Table" aria-label={`Show ${title.toLowerCase()} as a table`} isChecked={tableShown} onChange={(_e, on) => setTableShown(on)} />
          </Flex>
        </Flex>
      </CardHeader>
      <CardBody>
        <ErrorAlert error={error} />
        {pending ? <Loading /> : error ? null : empty ? <p data-empty>{emptyText}</p> : children(tableShown)}
      </CardBody>
    </Card>
  );
}
