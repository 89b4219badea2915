import { Button, FormGroup, FormHelperText, FormSelect, FormSelectOption, Grid, GridItem, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';
import { PlusCircleIcon } from '@patternfly/react-icons';
import { INVALID } from '../../components/FieldInput';
import { fieldHelp } from '../../components/field-help';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { VariablesEditor, parseVariables } from '../../components/VariablesEditor';
import { ACTION_KINDS, ACTION_TYPES, type ActionType, type RuleAction } from './event-rules-api';
import { keyed, moved, withoutKey, type Keyed } from './keyed-rows';
import { RowButtons } from './RowButtons';
import './event-rules.css';

/** An action being edited: its extra variables are INVALID while their text does not parse. */
export type ActionRow = Keyed<Omit<RuleAction, 'extra_vars'> & { extra_vars: unknown }>;

export const actionRows = (actions: RuleAction[]): ActionRow[] =>
  actions.map((a) => keyed({ action_type: a.action_type, target_id: a.target_id ?? null, extra_vars: a.extra_vars ?? {}, description: String(a.description ?? '') }));

export const newActionRow = (): ActionRow => keyed({ action_type: 'launch_job_template', target_id: null, extra_vars: {}, description: '' });

/** The rows as the API takes them, or the rows whose variables do not parse (by index). */
export function actionsOfRows(rows: ActionRow[]): { actions?: RuleAction[]; problems: Record<number, string> } {
  const problems: Record<number, string> = {};
  rows.forEach((row, i) => {
    if (row.extra_vars === INVALID) problems[i] = 'Fix the extra variables before saving.';
  });
  if (Object.keys(problems).length) return { problems };
  return { actions: rows.map((row) => withoutKey(row) as RuleAction), problems };
}

const variablesOf = (text: string) => parseVariables(text, text.trim().startsWith('{') ? 'json' : 'yaml').value;
const isEmpty = (vars: unknown) => !vars || (typeof vars === 'object' && !Object.keys(vars).length);

/**
 * A rule's actions, in order: each a type, a target picked from the list of that type (in the rule's
 * organization once one is chosen), extra variables for launches, and a description.
 */
export function ActionsEditor({ id, rows, onChange, organization, rowErrors = {}, error }: {
  id: string;
  rows: ActionRow[];
  onChange: (rows: ActionRow[]) => void;
  organization: unknown;
  rowErrors?: Record<number, string>;
  error?: string;
}) {
  const update = (index: number, change: Partial<ActionRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const scope = typeof organization === 'number' ? { organization } : undefined;
  return (
    <div id={id}>
      <ol className="drover-rule-rows" aria-label="Actions">
        {rows.map((row, index) => {
          const name = `Action ${index + 1}`;
          const kind = ACTION_KINDS[row.action_type] ?? ACTION_KINDS.launch_job_template;
          const rowId = `${id}-${index}`;
          const problem = rowErrors[index];
          return (
            <li key={row.key} className="drover-rule-action" data-action={index + 1}>
              <div className="drover-rule-row" style={{ justifyContent: 'space-between', marginBottom: '0.5rem' }}>
                <strong>{name}</strong>
                <RowButtons label={name} index={index} count={rows.length} onMove={(by) => onChange(moved(rows, index, by))} onRemove={() => onChange(rows.filter((_, i) => i !== index))} />
              </div>
              <Grid hasGutter md={6}>
                <GridItem md={4}>
                  <FormGroup label="Type" fieldId={`${rowId}-type`}>
                    <FormSelect id={`${rowId}-type`} value={row.action_type} onChange={(_e, v) => update(index, { action_type: v as ActionType, target_id: null })}>
                      {ACTION_TYPES.map((type) => <FormSelectOption key={type} value={type} label={ACTION_KINDS[type].label} />)}
                    </FormSelect>
                  </FormGroup>
                </GridItem>
                <GridItem md={8}>
                  <FormGroup label={kind.target} fieldId={`${rowId}-target`} isRequired>
                    <ReferenceSelect
                      key={row.action_type}
                      id={`${rowId}-target`}
                      label={`${name} ${kind.target.toLowerCase()}`}
                      listUrl={`/api/v2/${kind.targets}/`}
                      value={row.target_id}
                      onChange={(target) => update(index, { target_id: target })}
                      query={scope}
                      validated={problem ? 'error' : 'default'}
                    />
                  </FormGroup>
                </GridItem>
                <GridItem span={12}>
                  <FormGroup label="Description" fieldId={`${rowId}-description`}>
                    <TextInput id={`${rowId}-description`} value={row.description} onChange={(_e, v) => update(index, { description: v })} autoComplete="off" />
                  </FormGroup>
                </GridItem>
                {row.action_type !== 'send_notification' && (
                  <GridItem span={12}>
                    <VariablesEditor
                      id={`${rowId}-extra_vars`}
                      label={`${name} extra variables`}
                      value={isEmpty(row.extra_vars) || row.extra_vars === INVALID ? '' : row.extra_vars}
                      onChange={(text) => update(index, { extra_vars: text === undefined ? INVALID : variablesOf(text) })}
                      helperText="Passed to the launch with the event's svc_eda_* variables (YAML or JSON)."
                    />
                  </GridItem>
                )}
              </Grid>
              {problem && (
                <FormHelperText>
                  <HelperText><HelperTextItem variant="error" data-row-error>{problem}</HelperTextItem></HelperText>
                </FormHelperText>
              )}
            </li>
          );
        })}
      </ol>
      {fieldHelp(`${id}-list`, error)}
      <Button variant="link" isInline icon={<PlusCircleIcon />} onClick={() => onChange([...rows, newActionRow()])}>
        Add action
      </Button>
    </div>
  );
}
