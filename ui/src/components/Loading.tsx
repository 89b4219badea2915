import { Bullseye, Spinner } from '@patternfly/react-core';

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <Bullseye style={{ padding: '2rem' }}>
      <Spinner aria-label={label} />
    </Bullseye>
  );
}
