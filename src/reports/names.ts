/** The report names alone, so that the CLI can list them without loading the reports. */
export const REPORT_NAMES = [
  'daily',
  'disputes',
  'withdrawals',
  'discrepancies',
  'denied',
  'flagged',
] as const;
export type ReportName = (typeof REPORT_NAMES)[number];
