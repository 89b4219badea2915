import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Progress, ProgressMeasureLocation, ProgressVariant } from '@patternfly/react-core';
import { formatDate } from '../../components/cells';
import { isUnlimited, QUOTA_KINDS, QUOTAS, type Tenant } from './tenant-types';
import './tenants.css';

const amount = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** Usage against each quota: a bar where there is a limit (amber from 80%, red once reached), "Unlimited" where there is none. */
export function UsageBars({ tenant }: { tenant: Tenant }) {
  return (
    <>
      <DescriptionList isHorizontal isCompact aria-label="Usage against quotas">
        {QUOTA_KINDS.map((kind) => {
          const { label, usage: key, unit } = QUOTAS[kind];
          const limit = tenant.quota[kind];
          const used = Number(tenant.usage[key] ?? 0);
          const text = isUnlimited(limit) ? `${amount(used)} ${unit} · Unlimited` : `${amount(used)} of ${limit} ${unit}`;
          const percent = isUnlimited(limit) ? 0 : Math.min(100, Math.round((used / limit!) * 100));
          return (
            <DescriptionListGroup key={kind}>
              <DescriptionListTerm>{label}</DescriptionListTerm>
              <DescriptionListDescription data-quota={kind}>
                {isUnlimited(limit) ? (
                  <span className="drover-usage-unlimited">{text}</span>
                ) : (
                  <Progress
                    value={percent}
                    label={text}
                    valueText={text}
                    aria-label={`${label}: ${text}`}
                    measureLocation={ProgressMeasureLocation.outside}
                    variant={percent >= 100 ? ProgressVariant.danger : percent >= 80 ? ProgressVariant.warning : undefined}
                    style={{ maxWidth: '32rem' }}
                  />
                )}
              </DescriptionListDescription>
            </DescriptionListGroup>
          );
        })}
      </DescriptionList>
      <p className="drover-usage-unlimited" style={{ marginTop: '0.5rem' }}>
        {`Launches counted for ${tenant.usage.daily_date ?? 'today'} (UTC). Hosts and storage recalculated ${tenant.usage.recalculated ? formatDate(tenant.usage.recalculated) : 'never'}.`}
      </p>
    </>
  );
}
