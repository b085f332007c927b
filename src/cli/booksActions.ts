import { checkBooks, tiesOut } from '../books/checkBooks.js';
import { journalColumns, journalExportColumns, exportRow } from '../books/journalColumns.js';
import { balanceAt, closeThrough, journalDaily, journalEntries, reopenFrom } from '../books/sql.js';
import { formatBrl } from '../domain/money.js';
import { recordBookStates } from '../mirror/sql/bookStates.js';
import { renderCsv, renderReport, type ReportFormat } from '../reports/render.js';
import { withDatabase } from './storageContext.js';

export class BooksDayOpenError extends Error {
  override readonly name = 'BooksDayOpenError';
}

/** Today in São Paulo, YYYY-MM-DD. */
function todayInSaoPaulo(now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(now);
}

export async function checkCommand(): Promise<void> {
  const result = await withDatabase(async ({ database }) =>
    checkBooks(database.sql, await recordBookStates(database.sql)),
  );
  const lines: string[] = [];
  for (const record of result.untied) {
    lines.push(
      `${record.resourceType} ${record.id} ${record.account}: expected ${record.expectedCents}, booked ${record.bookedCents}`,
    );
  }
  for (const day of result.changedClosedDays) {
    lines.push(
      `closed day ${day.day} changed: ${day.closedCount} entries, ${day.closedAmountCents} at the close; ${day.countNow} entries, ${day.amountNowCents} now`,
    );
  }
  if (tiesOut(result)) {
    process.stdout.write(`books tie out: ${result.records} records, every closed day unchanged\n`);
    return;
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(
    `books do not tie out: ${result.untied.length} record accounts, ${result.changedClosedDays.length} closed days\n`,
  );
  process.exitCode = 1;
}

export async function closeCommand(day: string): Promise<void> {
  if (day >= todayInSaoPaulo()) {
    throw new BooksDayOpenError(`cannot close ${day}: it has not ended in America/Sao_Paulo`);
  }
  const through = await withDatabase(({ database }) => closeThrough(database.sql, day));
  process.stdout.write(
    through === day
      ? `books closed through ${day}\n`
      : `books already closed through ${through}: nothing to do\n`,
  );
}

export async function reopenCommand(day: string, reason: string): Promise<void> {
  const through = await withDatabase(({ database }) => reopenFrom(database.sql, day, reason));
  process.stdout.write(`reopened from ${day}; books now closed through ${through ?? '(no day)'}\n`);
}

export async function reportCommand(
  range: { from: string | null; to: string | null },
  format: ReportFormat,
): Promise<void> {
  const rows = await withDatabase(({ database }) =>
    journalDaily(database.sql, range.from, range.to),
  );
  process.stdout.write(renderReport(format, journalColumns, rows));
}

export async function exportCommand(range: {
  from: string | null;
  to: string | null;
}): Promise<void> {
  const rows = await withDatabase(({ database }) =>
    journalEntries(database.sql, range.from, range.to),
  );
  process.stdout.write(renderCsv(journalExportColumns, rows.map(exportRow)));
}

export async function balanceCommand(at: Date, format: 'table' | 'json'): Promise<void> {
  const balance = await withDatabase(({ database }) => balanceAt(database.sql, at));
  if (format === 'json') {
    process.stdout.write(
      `${JSON.stringify({ at: at.toISOString(), availableCents: balance.available, reservedCents: balance.reserved, entryCount: balance.entryCount }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(
    `at ${at.toISOString()}: available ${formatBrl(balance.available as never)}, reserved ${formatBrl(balance.reserved as never)} (${balance.entryCount} entries)\n`,
  );
}
