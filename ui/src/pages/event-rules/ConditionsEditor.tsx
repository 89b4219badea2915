import { Button, FormHelperText, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';
import { PlusCircleIcon } from '@patternfly/react-icons';
import type { Condition } from './event-rules-api';
import { keyed, moved, type Keyed } from './keyed-rows';
import { RowButtons } from './RowButtons';
import './event-rules.css';

export type ConditionRow = Keyed<Condition>;

export const conditionRows = (conditions: Condition[]): ConditionRow[] =>
  conditions.map((c) => keyed({ jinja2_expression: String(c.jinja2_expression ?? ''), description: String(c.description ?? '') }));

/**
 * A rule's conditions as rows of a Jinja2 expression and a description: added, removed and reordered
 * here. Messages for a row (the API's "Condition 2: ...") show under it; others under the list.
 */
export function ConditionsEditor({ id, rows, onChange, rowErrors = {}, error }: {
  id: string;
  rows: ConditionRow[];
  onChange: (rows: ConditionRow[]) => void;
  rowErrors?: Record<number, string>;
  error?: string;
}) {
  const update = (index: number, change: Partial<Condition>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <div id={id}>
      {rows.length === 0 ? (
        <p className="drover-subtle" style={{ marginBottom: '0.5rem' }}>No conditions: every event matches.</p>
      ) : (
        <ol className="drover-rule-rows" aria-label="Conditions">
          {rows.map((row, index) => {
            const name = `Condition ${index + 1}`;
            const problem = rowErrors[index];
            return (
              <li key={row.key} className="drover-rule-row" data-condition={index + 1}>
                <span className="drover-rule-row-number" aria-hidden>{index + 1}.</span>
                <div className="drover-rule-row-main">
                  <TextInput
                    id={`${id}-${index}-expression`}
                    aria-label={`${name} expression`}
                    className="drover-mono"
                    placeholder={'event.severity == "critical"'}
                    value={row.jinja2_expression}
                    validated={problem ? 'error' : 'default'}
                    onChange={(_e, v) => update(index, { jinja2_expression: v })}
                    spellCheck={false}
                    autoComplete="off"
                  />
                </div>
                <div className="drover-rule-row-side">
                  <TextInput id={`${id}-${index}-description`} aria-label={`${name} description`} placeholder="What it checks" value={row.description} onChange={(_e, v) => update(index, { description: v })} autoComplete="off" />
                </div>
                <RowButtons label={name} index={index} count={rows.length} onMove={(by) => onChange(moved(rows, index, by))} onRemove={() => onChange(rows.filter((_, i) => i !== index))} />
                {problem && (
                  <FormHelperText className="drover-rule-row-error">
                    <HelperText><HelperTextItem variant="error" data-row-error>{problem}</HelperTextItem></HelperText>
                  </FormHelperText>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {error && (
        <FormHelperText>
          <HelperText><HelperTextItem variant="error">{error}</HelperTextItem></HelperText>
        </FormHelperText>
      )}
      <Button variant="link" isInline icon={<PlusCircleIcon />} onClick={() => onChange([...rows, keyed({ jinja2_expression: '', description: '' })])}>
        Add condition
      </Button>
    </div>
  );
}
