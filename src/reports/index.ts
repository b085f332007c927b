/**
 * The finance reports: one module per view (docs/finance.md), each with its query and columns.
 */
import { dailyTotalsReport } from './dailyTotals.js';
import { deniedReport } from './denied.js';
import { discrepanciesByRunReport } from './discrepanciesByRun.js';
import { disputesReport } from './disputes.js';
import { flaggedReport } from './flagged.js';
import type { ReportName } from './names.js';
import type { ReportDefinition } from './report.js';
import { withdrawalsDailyReport } from './withdrawalsDaily.js';

export { type ReportName } from './names.js';

export const REPORTS: Readonly<Record<ReportName, ReportDefinition>> = {
  daily: dailyTotalsReport,
  disputes: disputesReport,
  withdrawals: withdrawalsDailyReport,
  discrepancies: discrepanciesByRunReport,
  denied: deniedReport,
  flagged: flaggedReport,
};

export { type ReportRow } from './columns.js';
export { ALL_DAYS, type DayRange } from './dayRange.js';
export { renderReport, type ReportFormat } from './render.js';
export { runReport, type ReportDefinition } from './report.js';
