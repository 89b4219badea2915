import type { ReactNode } from 'react';
import { DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Title } from '@patternfly/react-core';

/** One term of a details list, its value marked with the field it shows. */
export function DetailItem({ name, term, children }: { name: string; term: string; children: ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription data-field={name}>{children}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}

/** A titled part of a details page. */
export function DetailSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} style={{ marginTop: '1.5rem' }}>
      <Title headingLevel="h2" size="lg" style={{ marginBottom: '0.5rem' }}>{title}</Title>
      {children}
    </section>
  );
}
