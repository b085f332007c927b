import type { ReportDefinition } from './report.js';

/**
 * finance_open_disputes: sales in MED or CHARGEBACK, oldest first. The day filtered on is the
 * São Paulo day the sale entered its dispute status.
 */
export const openDisputesReport: ReportDefinition = {
  name: 'disputes',
  view: 'finance_open_disputes',
  columns: [
    { key: 'sale_id', label: 'sale', kind: 'integer' },
    { key: 'payment_method', label: 'method', kind: 'text' },
    { key: 'status', label: 'status', kind: 'text' },
    { key: 'amount_cents', label: 'amount', kind: 'cents' },
    { key: 'net_amount_cents', label: 'net', kind: 'cents' },
    { key: 'reserve_amount_cents', label: 'reserve', kind: 'cents' },
    { key: 'since', label: 'since', kind: 'timestamp' },
    { key: 'age', label: 'age', kind: 'duration' },
    { key: 'age_days', label: 'days', kind: 'integer' },
  ],
  query: (sql, { from, to }) => sql`
    select sale_id, payment_method, status, amount_cents, net_amount_cents, reserve_amount_cents,
           since, floor(extract(epoch from age))::bigint as age, age_days
      from finance_open_disputes
     where (${from}::date is null or (since at time zone 'America/Sao_Paulo')::date >= ${from}::date)
       and (${to}::date is null or (since at time zone 'America/Sao_Paulo')::date <= ${to}::date)
     order by since nulls first, sale_id`,
};
