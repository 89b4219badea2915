import { Label } from '@patternfly/react-core';
import type { DriftCategory, DriftSeverity } from './drift-api';

const SEVERITY_COLORS: Record<DriftSeverity, 'grey' | 'yellow' | 'orange' | 'red'> = { low: 'grey', medium: 'yellow', high: 'orange', critical: 'red' };

export const CATEGORY_NAMES: Record<DriftCategory, string> = {
  packages: 'Packages',
  services: 'Services',
  users_groups: 'Users and groups',
  network: 'Network',
  mounts: 'Mounts',
  kernel: 'Kernel',
  other: 'Other',
};

export const categoryName = (category: unknown) => CATEGORY_NAMES[String(category) as DriftCategory] ?? String(category);

export function SeverityLabel({ severity }: { severity: unknown }) {
  if (!severity) return <>–</>;
  const text = String(severity);
  return (
    <Label color={SEVERITY_COLORS[text as DriftSeverity] ?? 'grey'} isCompact data-severity={text}>
      {text}
    </Label>
  );
}

export function CategoryLabel({ category }: { category: unknown }) {
  if (!category) return <>–</>;
  return (
    <Label variant="outline" isCompact data-category={String(category)}>
      {categoryName(category)}
    </Label>
  );
}
