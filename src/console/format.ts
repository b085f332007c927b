import { formatBrl } from '../domain/money.js';
import { integerFromPostgres } from '../reports/columns.js';
import { html, type SafeHtml } from './html.js';

/**
 * How the console shows values to people: money in reais the Brazilian way (R$ 1.234,56, from
 * integer centavos by the domain's own formatter), times in America/Sao_Paulo with the exact
 * ISO 8601 instant on hover, durations in days, hours, minutes and seconds.
 */

export const TIME_ZONE = 'America/Sao_Paulo';

const DATE_TIME = new Intl.DateTimeFormat('pt-BR', {
  timeZone: TIME_ZONE,
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

const NOTHING = html`<span class="none">—</span>`;

/** A bigint (a string from Postgres) or an integer → a safe integer; null stays null. */
export function int(value: string | number | null | undefined, what: string): number | null {
  return value === null || value === undefined ? null : integerFromPostgres(value, what);
}

/** 123456 → "R$ 1.234,56". */
export function money(cents: number | null): SafeHtml {
  if (cents === null) return html`<span class="none" title="not known yet">—</span>`;
  return html`<span class="money">${formatBrl(cents)}</span>`;
}

/**
 * A discrepancy's stored value (text: centavos for money, as the reports keep them) for people:
 * a `*_cents` field's integer as reais, anything else as it is.
 */
export function fieldValue(field: string, value: string | null): string {
  if (value === null) return '(nothing)';
  if (/_cents$/.test(field) && /^-?[0-9]{1,15}$/.test(value)) return formatBrl(Number(value));
  return value;
}

/** "28/11/2026 20:59:40" in São Paulo, the ISO 8601 instant (UTC) on hover. */
export function when(value: Date | string | null): SafeHtml {
  if (value === null) return NOTHING;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return html`${String(value)}`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}" title="${iso}">${localTime(date)}</time>`;
}

function localTime(date: Date): string {
  return DATE_TIME.format(date).replace(',', '');
}

/** A São Paulo calendar day, YYYY-MM-DD → "28/11/2026", the ISO day on hover. */
export function day(value: string | null): SafeHtml {
  if (value === null) return NOTHING;
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(value);
  if (!match) return html`${value}`;
  return html`<time datetime="${value}" title="${value}"
    >${match[3]}/${match[2]}/${match[1]}</time
  >`;
}

/** A São Paulo calendar month, YYYY-MM → "11/2026", the ISO month on hover. */
export function month(value: string): SafeHtml {
  const match = /^([0-9]{4})-([0-9]{2})$/.exec(value);
  if (!match) return html`${value}`;
  return html`<time datetime="${value}" title="${value}">${match[2]}/${match[1]}</time>`;
}

/** 273906 → "3 d 4 h 5 min"; at most the three largest units, seconds only under an hour. */
export function duration(totalSeconds: number | null): string {
  if (totalSeconds === null) return '—';
  let rest = Math.max(0, Math.floor(totalSeconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}`);
  }
  if (totalSeconds < 3_600) parts.push(`${rest} s`);
  return parts.slice(0, 3).join(' ') || '0 s';
}

/** A status as a badge whose class says how it reads (paid, open, disputed, failed…). */
export function status(value: string | null): SafeHtml {
  if (value === null) return NOTHING;
  return html`<span class="badge ${toneOf(value)}">${value}</span>`;
}

const TONES: Readonly<Record<string, string>> = {
  PAGO: 'good',
  COMPLETED: 'good',
  processed: 'good',
  applied: 'good',
  succeeded: 'good',
  corrected: 'good',
  MED: 'warn',
  CHARGEBACK: 'warn',
  pending: 'warn',
  unknown: 'bad',
  quarantined: 'bad',
  failed: 'bad',
  FAILED: 'bad',
  REJECTED: 'bad',
  RECUSADO: 'bad',
  FALHA: 'bad',
  forged: 'bad',
  invalid: 'bad',
  partial: 'warn',
  running: 'warn',
  ESTORNADO: 'muted',
  closed: 'muted',
  CANCELADO: 'muted',
  CANCELLED: 'muted',
  not_paid: 'muted',
  rejected: 'muted',
};

function toneOf(value: string): string {
  return TONES[value] ?? 'plain';
}
