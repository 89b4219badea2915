import { Button, Flex, FlexItem } from '@patternfly/react-core';
import { ArrowDownIcon, ArrowUpIcon, TrashIcon } from '@patternfly/react-icons';

/** Move up, move down and remove for row `index` of `count` in a list editor, named after `label`. */
export function RowButtons({ label, index, count, onMove, onRemove }: { label: string; index: number; count: number; onMove: (by: -1 | 1) => void; onRemove: () => void }) {
  return (
    <Flex spaceItems={{ default: 'spaceItemsNone' }} flexWrap={{ default: 'nowrap' }}>
      <FlexItem><Button variant="plain" aria-label={`Move ${label} up`} icon={<ArrowUpIcon />} isDisabled={index === 0} onClick={() => onMove(-1)} /></FlexItem>
      <FlexItem><Button variant="plain" aria-label={`Move ${label} down`} icon={<ArrowDownIcon />} isDisabled={index === count - 1} onClick={() => onMove(1)} /></FlexItem>
      <FlexItem><Button variant="plain" aria-label={`Remove ${label}`} icon={<TrashIcon />} onClick={onRemove} /></FlexItem>
    </Flex>
  );
}
