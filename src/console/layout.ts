import { html, type HtmlValue, type SafeHtml } from './html.js';

export const CONSOLE_PATH = '/console';

export type Section =
  'deliveries' | 'totals' | 'books' | 'reconciliation' | 'cashouts' | 'health' | null;

const NAV: readonly { section: Exclude<Section, null>; label: string; href: string }[] = [
  { section: 'deliveries', label: 'Deliveries', href: `${CONSOLE_PATH}/deliveries` },
  { section: 'totals', label: 'Totals', href: `${CONSOLE_PATH}/totals` },
  { section: 'books', label: 'Books', href: `${CONSOLE_PATH}/books` },
  { section: 'reconciliation', label: 'Reconciliation', href: `${CONSOLE_PATH}/reconciliation` },
  { section: 'cashouts', label: 'Cashouts', href: `${CONSOLE_PATH}/cashouts` },
  { section: 'health', label: 'Health', href: `${CONSOLE_PATH}/health` },
];

export interface PageSpec {
  readonly title: string;
  readonly section: Section;
  readonly body: HtmlValue;
  /** Scripts of the console's own (served from /console/assets), in this order. */
  readonly scripts?: readonly string[];
  /** Signed in (a session or a token): show the navigation and the sign-out button. */
  readonly signedIn?: boolean;
}

function asset(name: string): string {
  return `${CONSOLE_PATH}/assets/${name}`;
}

/** The whole document: no inline script or style (the Content-Security-Policy forbids both). */
export function page(spec: PageSpec): SafeHtml {
  const signedIn = spec.signedIn ?? true;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${spec.title} · paymirror console</title>
        <link rel="icon" href="${asset('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${asset('console.css')}" />
        ${[...(spec.scripts ?? []), 'console.js'].map(
          (script) => html`<script src="${asset(script)}" defer></script>`,
        )}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="${CONSOLE_PATH}">paymirror <span>console</span></a>
          ${signedIn ? navigation(spec.section) : null}
        </header>
        <main id="main">${spec.body}</main>
        <footer>
          Read-only. Money in reais (R$), times in America/Sao_Paulo: hover a time for its ISO 8601
          instant. CSV downloads keep centavos and ISO 8601 (UTC).
        </footer>
      </body>
    </html>`;
}

function navigation(current: Section): SafeHtml {
  return html`<nav aria-label="Console sections">
      <ul>
        ${NAV.map(
          (item) =>
            html`<li>
              <a href="${item.href}" ${item.section === current ? html`aria-current="page"` : null}
                >${item.label}</a
              >
            </li>`,
        )}
      </ul>
    </nav>
    <form class="lookup" method="get" action="${CONSOLE_PATH}/lookup" role="search">
      <label for="lookup-kind">Record</label>
      <select id="lookup-kind" name="kind">
        <option value="sale">Sale</option>
        <option value="withdrawal">Withdrawal</option>
      </select>
      <label for="lookup-id" class="visually-hidden">Record id</label>
      <input
        id="lookup-id"
        name="id"
        inputmode="numeric"
        pattern="[0-9]{1,15}"
        required
        placeholder="id"
        size="10"
      />
      <button type="submit">Open</button>
    </form>
    <form class="signout" method="post" action="${CONSOLE_PATH}/logout">
      <button type="submit">Sign out</button>
    </form>`;
}

/** A definition list of label → value, for a record's own fields. */
export function facts(pairs: readonly (readonly [string, HtmlValue])[]): SafeHtml {
  return html`<dl class="facts">
    ${pairs.map(
      ([label, value]) =>
        html`<div>
          <dt>${label}</dt>
          <dd>${value}</dd>
        </div>`,
    )}
  </dl>`;
}
