import { Alert } from '@patternfly/react-core';
import { ApiError } from '../api/errors';

export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const heading = error instanceof ApiError && error.status === 403 ? 'Not allowed' : error instanceof ApiError && error.status === 404 ? 'Not found' : title;
  return (
    <Alert variant="danger" isInline title={heading} role="alert">
      {message}
    </Alert>
  );
}
