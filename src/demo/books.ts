import { checkBooks, tiesOut } from '../books/checkBooks.js';
import { balanceAt } from '../books/sql.js';
import type { Sql } from '../db/client.js';
import { formatBrl, type Cents } from '../domain/money.js';
import { recordBookStates } from '../mirror/sql/bookStates.js';

/** The books at the demo's end: `books check`, their totals, and the sandbox's own balance. */
export interface BooksSummary {
  readonly tiesOut: boolean;
  readonly untiedAccounts: number;
  readonly entries: number;
  readonly availableCents: number;
  readonly reservedCents: number;
  readonly gatewayAvailableCents: number;
  readonly gatewayReserveCents: number;
  /** The journal's totals equal the gateway's balance (the demo's sandbox starts at zero). */
  readonly matchesGateway: boolean;
}

const END_OF_TIME = new Date('9999-12-31T23:59:59Z');

export async function booksSummary(
  sql: Sql,
  gateway: { readonly availableCents: number; readonly reserveCents: number },
): Promise<BooksSummary> {
  const [check, totals] = await Promise.all([
    recordBookStates(sql).then((states) => checkBooks(sql, states)),
    balanceAt(sql, END_OF_TIME),
  ]);
  return {
    tiesOut: tiesOut(check),
    untiedAccounts: check.untied.length + check.changedClosedDays.length,
    entries: totals.entryCount,
    availableCents: totals.available,
    reservedCents: totals.reserved,
    gatewayAvailableCents: gateway.availableCents,
    gatewayReserveCents: gateway.reserveCents,
    matchesGateway:
      totals.available === gateway.availableCents && totals.reserved === gateway.reserveCents,
  };
}

export function formatBooks(books: BooksSummary): string {
  const brl = (cents: number) => formatBrl(cents as Cents);
  return (
    'BOOKS\n' +
    `  journal: ${books.entries} entries; available ${brl(books.availableCents)}, ` +
    `reserved ${brl(books.reservedCents)}\n` +
    `  gateway balance: available ${brl(books.gatewayAvailableCents)}, ` +
    `reserve ${brl(books.gatewayReserveCents)} → ${books.matchesGateway ? '✓ equal' : '✗ differs'}\n` +
    `  books check: ${
      books.tiesOut
        ? 'every record ties out'
        : `${books.untiedAccounts} record accounts or closed days do not tie out`
    } → ${books.tiesOut ? 'OK' : 'FAILED'}\n`
  );
}
