import { Link } from 'react-router';
import { ChartCard } from './ChartCard';
import { COLORS, RowBars } from './charts';
import { FigureTable, figure } from './FigureTable';
import { useAnalytics } from './use-analytics';

const templateLink = (id: number, name: string) => <Link to={`/job_templates/${id}`}>{name}</Link>;

export function TopTemplatesCard({ period }: { period: string }) {
  const q = useAnalytics('top_templates', { period });
  const rows = q.data ?? [];
  return (
    <ChartCard title="Top templates" error={q.error} pending={q.isPending} empty={rows.length === 0}>
      {(shown) => (
        <>
          <RowBars rows={rows.map((r) => ({ label: r.template_name, value: r.run_count }))} summary={`Top templates by jobs: ${rows.map((r) => `${r.template_name} ${r.run_count}`).join(', ')}`} />
          <FigureTable
            caption="Top templates"
            shown={shown}
            columns={['Template', 'Jobs', 'Average duration (s)', 'Success rate']}
            rows={rows.map((r) => [templateLink(r.template_id, r.template_name), r.run_count, figure(r.avg_duration), figure(r.success_rate, '%')])}
          />
        </>
      )}
    </ChartCard>
  );
}

export function BusiestHostsCard({ period }: { period: string }) {
  const q = useAnalytics('busiest_hosts', { period });
  const rows = q.data ?? [];
  return (
    <ChartCard title="Busiest hosts" error={q.error} pending={q.isPending} empty={rows.length === 0}>
      {(shown) => (
        <>
          <RowBars rows={rows.map((r) => ({ label: r.host_name, value: r.job_count }))} summary={`Busiest hosts by jobs: ${rows.map((r) => `${r.host_name} ${r.job_count}`).join(', ')}`} />
          <FigureTable
            caption="Busiest hosts"
            shown={shown}
            columns={['Host', 'Jobs', 'OK', 'Changed', 'Failures', 'Skipped']}
            rows={rows.map((r) => [r.host_name, r.job_count, r.total_ok, r.total_changed, r.total_failures, r.total_skipped])}
          />
        </>
      )}
    </ChartCard>
  );
}

/** Of the hosts the user may see, those a job of the period ran on, in all and per inventory. */
export function CoverageCard({ period }: { period: string }) {
  const q = useAnalytics('host_coverage', { period });
  const c = q.data;
  const rows = c?.by_inventory ?? [];
  return (
    <ChartCard title="Host coverage" error={q.error} pending={q.isPending} empty={!c || c.total_hosts === 0} emptyText="No hosts to show.">
      {(shown) => c && (
        <>
          <p data-coverage>{`${c.automated_hosts} of ${c.total_hosts} hosts automated (${figure(c.coverage_pct, '%')})`}</p>
          <RowBars rows={rows.map((r) => ({ label: r.inventory_name, value: r.coverage_pct ?? 0 }))} percent color={COLORS.successful} summary={`Host coverage by inventory: ${rows.map((r) => `${r.inventory_name} ${figure(r.coverage_pct, '%')}`).join(', ')}`} />
          <FigureTable
            caption="Host coverage"
            shown={shown}
            columns={['Inventory', 'Hosts', 'Automated', 'Coverage']}
            rows={rows.map((r) => [<Link key="i" to={`/inventories/${r.inventory_id}`}>{r.inventory_name}</Link>, r.total_hosts, r.automated_hosts, figure(r.coverage_pct, '%')])}
          />
        </>
      )}
    </ChartCard>
  );
}

/** What fails most: templates whose jobs ended failed or error, hosts with failures or unreachable. */
export function FailuresCard({ period }: { period: string }) {
  const q = useAnalytics('failure_analysis', { period });
  const templates = q.data?.by_template ?? [];
  const hosts = q.data?.by_host ?? [];
  return (
    <ChartCard title="Failure analysis" error={q.error} pending={q.isPending} empty={templates.length + hosts.length === 0} emptyText="No failures in this period.">
      {(shown) => (
        <>
          <h3 className="pf-v6-c-title pf-m-md">By template</h3>
          {templates.length ? (
            <>
              <RowBars rows={templates.map((r) => ({ label: r.template_name, value: r.failed_count }))} color={COLORS.failed} summary={`Failed jobs by template: ${templates.map((r) => `${r.template_name} ${r.failed_count}`).join(', ')}`} />
              <FigureTable
                caption="Failures by template"
                shown={shown}
                columns={['Template', 'Jobs', 'Failed', 'Failure rate']}
                rows={templates.map((r) => [templateLink(r.template_id, r.template_name), r.run_count, r.failed_count, figure(r.failure_rate, '%')])}
              />
            </>
          ) : <p>No template failed.</p>}
          <h3 className="pf-v6-c-title pf-m-md">By host</h3>
          {hosts.length ? (
            <>
              <RowBars rows={hosts.map((r) => ({ label: r.host_name, value: r.failed_count }))} color={COLORS.failed} summary={`Failed jobs by host: ${hosts.map((r) => `${r.host_name} ${r.failed_count}`).join(', ')}`} />
              <FigureTable
                caption="Failures by host"
                shown={shown}
                columns={['Host', 'Jobs', 'Failed', 'Failure rate']}
                rows={hosts.map((r) => [r.host_name, r.job_count, r.failed_count, figure(r.failure_rate, '%')])}
              />
            </>
          ) : <p>No host failed.</p>}
        </>
      )}
    </ChartCard>
  );
}
