/**
 * HTML that escapes by default. Every value interpolated into `html` is escaped (text and
 * double-quoted attribute values alike), unless it is itself SafeHtml: the result of another
 * `html` template, or of `trusted()` on a constant of our own. A customer's name, a delivery's
 * body, anything the gateway relays, is just a string here and can never become markup.
 */

const SAFE = Symbol('SafeHtml');

export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

/** What may be interpolated: text, numbers, nested SafeHtml, lists of them; nothing renders nothing. */
export type HtmlValue =
  SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && SAFE in value;
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (isSafe(value)) return value.text;
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return { [SAFE]: true, text };
}

/** Marks markup written in this code base as safe. Never for a value that came from outside. */
export function trusted(markup: string): SafeHtml {
  return { [SAFE]: true, text: markup };
}

/** The document as sent. */
export function documentText(page: SafeHtml): string {
  return page.text;
}
