import { useState } from 'react';
import { Flex, FlexItem, FormSelect, FormSelectOption, Grid, GridItem, PageSection, Title } from '@patternfly/react-core';
import { useSearchParams } from 'react-router';
import { TrendsCard, SuccessRateCard, type Granularity } from './trends';
import { BusiestHostsCard, CoverageCard, FailuresCard, TopTemplatesCard } from './rankings';
import { TimeSavingsCard } from './TimeSavingsCard';

const PERIODS = [['week', 'Past week'], ['two_weeks', 'Past two weeks'], ['month', 'Past month'], ['quarter', 'Past quarter'], ['year', 'Past year']] as const;
type Period = (typeof PERIODS)[number][0];
const isPeriod = (value: string | null): value is Period => PERIODS.some(([p]) => p === value);

/**
 * Service analytics (docs/analytics.md): the jobs the user may see over a period, as charts with
 * their tables. The period is in the address (/analytics?period=quarter), so a link shows the same.
 */
export default function AnalyticsPage() {
  const [search, setSearch] = useSearchParams();
  const asked = search.get('period');
  const period: Period = isPeriod(asked) ? asked : 'month';
  const [granularity, setGranularity] = useState<Granularity>('day');
  return (
    <>
      <PageSection>
        <Flex justifyContent={{ default: 'justifyContentSpaceBetween' }} alignItems={{ default: 'alignItemsCenter' }}>
          <Title headingLevel="h1">Analytics</Title>
          <FlexItem>
            <FormSelect aria-label="Period" value={period} onChange={(_e, v) => setSearch((s) => { s.set('period', v); return s; }, { replace: true })}>
              {PERIODS.map(([value, label]) => <FormSelectOption key={value} value={value} label={label} />)}
            </FormSelect>
          </FlexItem>
        </Flex>
        <p>Jobs you may see that finished in the period (playbook runs; workflows count through their templates' jobs).</p>
      </PageSection>
      <PageSection>
        <Grid hasGutter>
          <GridItem xl={6}><TrendsCard period={period} granularity={granularity} onGranularity={setGranularity} /></GridItem>
          <GridItem xl={6}><SuccessRateCard period={period} granularity={granularity} /></GridItem>
          <GridItem xl={6}><TopTemplatesCard period={period} /></GridItem>
          <GridItem xl={6}><BusiestHostsCard period={period} /></GridItem>
          <GridItem xl={6}><CoverageCard period={period} /></GridItem>
          <GridItem xl={6}><FailuresCard period={period} /></GridItem>
          <GridItem><TimeSavingsCard period={period} /></GridItem>
        </Grid>
      </PageSection>
    </>
  );
}
