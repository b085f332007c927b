import type {
  backfillProgress,
  cashoutAttempts,
  reconciliationDiscrepancies,
  saleItems,
  sales,
  statusHistory,
  withdrawals,
} from './schema.js';

/**
 * Rows as TypeScript sees them, from the schema: `…Row` as a statement reads it back (columns
 * aliased to these camelCase names), `…Insert` as a write gives it (defaults left out).
 */
export type SaleRow = typeof sales.$inferSelect;
export type SaleInsert = typeof sales.$inferInsert;
export type WithdrawalRow = typeof withdrawals.$inferSelect;
export type WithdrawalInsert = typeof withdrawals.$inferInsert;
export type SaleItemInsert = typeof saleItems.$inferInsert;
export type HistoryInsert = typeof statusHistory.$inferInsert;
export type DiscrepancyInsert = typeof reconciliationDiscrepancies.$inferInsert;
export type BackfillProgressRow = typeof backfillProgress.$inferSelect;
export type CashoutAttemptRow = typeof cashoutAttempts.$inferSelect;
