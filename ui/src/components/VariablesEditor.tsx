import { useState } from 'react';
import { FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

type Mode = 'yaml' | 'json';

/** Parses the text in its mode: the value, or the problem as a message. */
export function parseVariables(text: string, mode: Mode): { value?: unknown; problem?: string } {
  if (!text.trim()) return { value: {} };
  try {
    const value = mode === 'json' ? JSON.parse(text) : parseYaml(text);
    if (value !== null && typeof value !== 'object') return { problem: 'Variables must be a mapping of names to values.' };
    return { value: value ?? {} };
  } catch (err) {
    return { problem: `${mode === 'json' ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}` };
  }
}

function render(value: unknown, mode: Mode): string {
  if (value === '' || value === null || value === undefined) return mode === 'json' ? '{}' : '---\n';
  let data: unknown = value;
  if (typeof value === 'string') {
    const parsed = parseVariables(value, value.trim().startsWith('{') ? 'json' : 'yaml');
    if (parsed.problem) return value;
    data = parsed.value;
  }
  return mode === 'json' ? JSON.stringify(data, null, 2) : `---\n${toYaml(data)}`;
}

/**
 * A variables editor (extra_vars, host and group variables): YAML or JSON, switched without losing
 * what was typed, with the parse problem shown under the field as it is typed.
 */
export function VariablesEditor({ id, label, value, onChange, error, helperText, readOnly, labelInfo }: {
  id: string;
  label: string;
  value: unknown;
  /** The text as the API takes it (YAML or JSON both are accepted), or undefined while invalid. */
  onChange: (text: string | undefined) => void;
  error?: string;
  helperText?: string;
  readOnly?: boolean;
  /** Shown beside the label (a "Prompt on launch" switch). */
  labelInfo?: React.ReactNode;
}) {
  const [mode, setMode] = useState<Mode>(typeof value === 'string' && value.trim().startsWith('{') ? 'json' : 'yaml');
  const [text, setText] = useState(() => render(value, mode));
  const problem = parseVariables(text, mode).problem;

  const switchTo = (next: Mode) => {
    const parsed = parseVariables(text, mode);
    if (parsed.problem) return;
    setMode(next);
    setText(render(parsed.value, next));
  };
  const message = problem ?? error;

  return (
    <FormGroup label={label} labelInfo={labelInfo} fieldId={id} className="drover-code-editor">
      <ToggleGroup aria-label={`${label} format`} isCompact>
        <ToggleGroupItem text="YAML" isSelected={mode === 'yaml'} onChange={() => switchTo('yaml')} isDisabled={!!problem} />
        <ToggleGroupItem text="JSON" isSelected={mode === 'json'} onChange={() => switchTo('json')} isDisabled={!!problem} />
      </ToggleGroup>
      <TextArea
        id={id}
        aria-label={label}
        value={text}
        readOnlyVariant={readOnly ? 'default' : undefined}
        validated={message ? 'error' : 'default'}
        spellCheck={false}
        resizeOrientation="vertical"
        onChange={(_e, next) => {
          setText(next);
          onChange(parseVariables(next, mode).problem ? undefined : next);
        }}
      />
      <FormHelperText>
        <HelperText>
          <HelperTextItem variant={message ? 'error' : 'default'}>{message ?? helperText ?? 'YAML or JSON.'}</HelperTextItem>
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
