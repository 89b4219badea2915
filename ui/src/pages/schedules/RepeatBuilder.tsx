import { Checkbox, FormGroup, FormSelect, FormSelectOption, Grid, GridItem, Radio, TextInput } from '@patternfly/react-core';
import { MONTHS, SETPOS, SETPOS_DAYS, WEEKDAYS, type Frequency, type Repeat } from './rrule-builder';

const FREQUENCIES: [Frequency, string, string][] = [
  ['none', 'None (run once)', ''],
  ['minute', 'Minute', 'minutes'],
  ['hour', 'Hour', 'hours'],
  ['day', 'Day', 'days'],
  ['week', 'Week', 'weeks'],
  ['month', 'Month', 'months'],
  ['year', 'Year', 'years'],
];

/** Frequency, interval, days and end of a schedule's repeat. */
export function RepeatBuilder({ repeat, onChange }: { repeat: Repeat; onChange: (repeat: Repeat) => void }) {
  const set = <K extends keyof Repeat>(key: K, value: Repeat[K]) => onChange({ ...repeat, [key]: value });
  const unit = FREQUENCIES.find(([f]) => f === repeat.frequency)?.[2] ?? '';
  const number = (v: string, min = 1) => Math.max(min, Number.parseInt(v, 10) || min);
  const monthly = repeat.frequency === 'month' || repeat.frequency === 'year';
  return (
    <Grid hasGutter>
      <GridItem span={12} md={6}>
        <FormGroup label="Repeat frequency" fieldId="schedule-frequency">
          <FormSelect id="schedule-frequency" value={repeat.frequency} onChange={(_e, v) => set('frequency', v as Frequency)}>
            {FREQUENCIES.map(([value, label]) => <FormSelectOption key={value} value={value} label={label} />)}
          </FormSelect>
        </FormGroup>
      </GridItem>
      {repeat.frequency !== 'none' && (
        <GridItem span={12} md={6}>
          <FormGroup label={`Run every (${unit})`} fieldId="schedule-interval">
            <TextInput id="schedule-interval" type="number" min={1} value={String(repeat.interval)} onChange={(_e, v) => set('interval', number(v))} />
          </FormGroup>
        </GridItem>
      )}
      {repeat.frequency === 'week' && (
        <GridItem span={12}>
          <FormGroup label="On days" fieldId="schedule-weekdays" role="group" isInline>
            {WEEKDAYS.map(([code, label]) => (
              <Checkbox
                key={code}
                id={`schedule-weekday-${code}`}
                label={label}
                isChecked={repeat.weekdays.includes(code)}
                onChange={(_e, on) => set('weekdays', on ? [...repeat.weekdays, code] : repeat.weekdays.filter((d) => d !== code))}
              />
            ))}
          </FormGroup>
        </GridItem>
      )}
      {repeat.frequency === 'year' && (
        <GridItem span={12} md={6}>
          <FormGroup label="In month" fieldId="schedule-month">
            <FormSelect id="schedule-month" value={String(repeat.month)} onChange={(_e, v) => set('month', Number(v))}>
              {MONTHS.map((label, i) => <FormSelectOption key={label} value={String(i + 1)} label={label} />)}
            </FormSelect>
          </FormGroup>
        </GridItem>
      )}
      {monthly && (
        <GridItem span={12}>
          <FormGroup label="Run on" fieldId="schedule-by" role="radiogroup">
            <Radio id="schedule-by-monthday" name="schedule-by" label="Day of the month" isChecked={repeat.by === 'monthday'} onChange={() => set('by', 'monthday')} />
            {repeat.by === 'monthday' && (
              <TextInput aria-label="Day of the month" id="schedule-monthday" type="number" min={1} max={31} value={String(repeat.monthDay)} onChange={(_e, v) => set('monthDay', Math.min(31, number(v)))} style={{ maxWidth: '8rem' }} />
            )}
            <Radio id="schedule-by-setpos" name="schedule-by" label="A weekday of the month (the first Monday…)" isChecked={repeat.by === 'setpos'} onChange={() => set('by', 'setpos')} />
            {repeat.by === 'setpos' && (
              <div style={{ display: 'flex', gap: '0.5rem', flexWrap: 'wrap' }}>
                <FormSelect aria-label="Which one" value={String(repeat.setPos)} onChange={(_e, v) => set('setPos', Number(v))} style={{ maxWidth: '10rem' }}>
                  {SETPOS.map(([n, label]) => <FormSelectOption key={n} value={String(n)} label={label} />)}
                </FormSelect>
                <FormSelect aria-label="Day" value={repeat.setPosDay} onChange={(_e, v) => set('setPosDay', v)} style={{ maxWidth: '12rem' }}>
                  {SETPOS_DAYS.map(([code, label]) => <FormSelectOption key={code} value={code} label={label} />)}
                </FormSelect>
              </div>
            )}
          </FormGroup>
        </GridItem>
      )}
      {repeat.frequency !== 'none' && (
        <GridItem span={12}>
          <FormGroup label="Ends" fieldId="schedule-ends" role="radiogroup" isInline>
            <Radio id="schedule-ends-never" name="schedule-ends" label="Never" isChecked={repeat.ends === 'never'} onChange={() => set('ends', 'never')} />
            <Radio id="schedule-ends-after" name="schedule-ends" label="After a number of runs" isChecked={repeat.ends === 'after'} onChange={() => set('ends', 'after')} />
            <Radio id="schedule-ends-on" name="schedule-ends" label="On a date" isChecked={repeat.ends === 'on'} onChange={() => set('ends', 'on')} />
          </FormGroup>
          {repeat.ends === 'after' && (
            <FormGroup label="Runs" fieldId="schedule-count">
              <TextInput id="schedule-count" type="number" min={1} max={999} value={String(repeat.count)} onChange={(_e, v) => set('count', Math.min(999, number(v)))} style={{ maxWidth: '8rem' }} />
            </FormGroup>
          )}
          {repeat.ends === 'on' && (
            <FormGroup label="Last day" fieldId="schedule-until">
              <TextInput id="schedule-until" type="date" value={repeat.until} onChange={(_e, v) => set('until', v)} style={{ maxWidth: '12rem' }} />
            </FormGroup>
          )}
        </GridItem>
      )}
    </Grid>
  );
}
