import { Switch } from '@patternfly/react-core';

/** The "Prompt on launch" switch beside a promptable field (its ask_*_on_launch flag). */
export function PromptSwitch({ flag, field, checked, onChange }: { flag: string; field: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <Switch
      id={`field-${flag}`}
      label="Prompt on launch"
      aria-label={`Prompt for ${field} on launch`}
      isChecked={checked}
      onChange={(_e, on) => onChange(on)}
      isReversed
      className="drover-prompt-switch"
    />
  );
}
