// Existence is a fact of its own, held in `denied_at` alone (docs/finance.md): a denied record
// leaves every finance view and the books until an authentic observation clears it.

/** What clears a denial: an authentic observation of the record (see planNotice, planRead). */
export const RESTORED = { deniedAt: null, denialReadAt: null } as const;

export function wasDenied(record: {
  readonly deniedAt: Date | null;
  readonly denialReadAt: Date | null;
}): boolean {
  return record.deniedAt !== null || record.denialReadAt !== null;
}
