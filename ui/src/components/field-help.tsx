import { FormHelperText, HelperText, HelperTextItem } from '@patternfly/react-core';

/** The line under a control: its error, else its hint, else nothing (described by `<id>-help`). */
export const fieldHelp = (id: string, error?: string, hint?: string) =>
  error || hint ? (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>{error ?? hint}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  ) : null;
