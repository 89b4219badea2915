import type { ReactNode } from 'react';
import { Flex, FlexItem, Title } from '@patternfly/react-core';

/** An object page's heading: its title with optional labels under it, and its actions on the right. */
export function DetailHeader({ title, labels, actions }: { title: ReactNode; labels?: ReactNode; actions: ReactNode }) {
  return (
    <Flex justifyContent={{ default: 'justifyContentSpaceBetween' }} alignItems={{ default: 'alignItemsCenter' }}>
      <FlexItem>
        <Title headingLevel="h1">{title}</Title>
        {labels}
      </FlexItem>
      <FlexItem>{actions}</FlexItem>
    </Flex>
  );
}
