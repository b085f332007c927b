/**
 * Whether a record counts in finance (its views and the books): every record the gateway has not
 * denied. Existence is a fact of its own, held in `denied_at` alone (docs/finance.md); the SQL
 * form is `countedRecord` in sql/records.ts.
 */
export function isCounted(record: { readonly deniedAt: Date | null }): boolean {
  return record.deniedAt === null;
}

/** What clears a denial: an authentic observation of the record (see planNotice, planRead). */
export const RESTORED = { deniedAt: null, denialReadAt: null } as const;

export function wasDenied(record: {
  readonly deniedAt: Date | null;
  readonly denialReadAt: Date | null;
}): boolean {
  return record.deniedAt !== null || record.denialReadAt !== null;
}
