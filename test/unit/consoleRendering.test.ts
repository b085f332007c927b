import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { day, duration, fieldValue, money, when } from '../../src/console/format.js';
import { escapeHtml, html, trusted } from '../../src/console/html.js';
import {
  issueSession,
  sessionCookie,
  sessionCookieOf,
  sessionIsValid,
  SESSION_SECONDS,
} from '../../src/console/session.js';
import { consoleTable, tableCsv, tableHtml } from '../../src/console/table.js';
import { renderCsv } from '../../src/reports/render.js';

const XSS = '<img src=x onerror=alert(1)>';

describe('the html tag', () => {
  it('escapes every interpolation, in text and in attributes', () => {
    const name = `${XSS}"' & <script>`;
    const out = html`<p title="${name}">${name}</p>`.text;
    expect(out).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39; &amp; &lt;script&gt;">' +
        '&lt;img src=x onerror=alert(1)&gt;&quot;&#39; &amp; &lt;script&gt;</p>',
    );
    expect(out).not.toContain('<img');
  });

  it('keeps nested templates and lists as markup, their values still escaped', () => {
    const rows = ['a<b', 'c&d'].map((value) => html`<li>${value}</li>`);
    // (Prettier formats html`` templates as HTML: whitespace between tags is theirs.)
    const list = html`<ul>
      ${rows}
    </ul>`;
    expect(list.text.replace(/>\s+</g, '><')).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0');
    expect(html`${trusted('<hr />')}`.text).toBe('<hr />');
  });

  it('never lets a string through unescaped, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const out = html`<td>${text}</td>`.text;
        const inner = out.slice('<td>'.length, -'</td>'.length);
        expect(inner).not.toMatch(/[<>"']/);
        expect(inner).toBe(escapeHtml(text));
      }),
    );
  });
});

describe('values for people', () => {
  it('money in reais the Brazilian way, from integer centavos', () => {
    expect(money(123456).text).toBe('<span class="money">R$ 1.234,56</span>');
    expect(money(5).text).toContain('R$ 0,05');
    expect(money(900719925474099).text).toContain('R$ 9.007.199.254.740,99');
    expect(money(null).text).toContain('—');
  });

  it('times in São Paulo, the ISO 8601 instant on hover', () => {
    // 03:30 UTC is 00:30 in São Paulo (UTC-3): the day before.
    expect(when(new Date('2026-03-01T03:30:05.000Z')).text).toBe(
      '<time datetime="2026-03-01T03:30:05.000Z" title="2026-03-01T03:30:05.000Z">' +
        '01/03/2026 00:30:05</time>',
    );
    // Postgres's text form of timestamptz reads the same.
    expect(when('2026-03-01 03:30:05+00').text).toContain('01/03/2026 00:30:05');
    expect(day('2026-11-28').text.replace(/\s+/g, ' ')).toBe(
      '<time datetime="2026-11-28" title="2026-11-28" >28/11/2026</time >',
    );
  });

  it('durations, and discrepancy values of money fields', () => {
    expect(duration(42)).toBe('42 s');
    expect(duration(3_725)).toBe('1 h 2 min');
    expect(duration(273_906)).toBe('3 d 4 h 5 min');
    expect(fieldValue('reserve_amount_cents', '41095')).toBe('R$ 410,95');
    expect(fieldValue('status', 'PAGO')).toBe('PAGO');
    expect(fieldValue('amount_cents', null)).toBe('(nothing)');
  });
});

describe('console tables', () => {
  const columns = [
    { key: 'id', label: 'sale', kind: 'integer' as const, href: () => '/console/sales/7' },
    { key: 'customer_name', label: 'customer', kind: 'text' as const },
    { key: 'amount_cents', label: 'amount', kind: 'cents' as const },
    { key: 'at', label: 'at', kind: 'timestamp' as const },
  ];
  const table = consoleTable({ name: 'sales', caption: 'Sales', columns, empty: 'none' }, [
    { id: '7', customer_name: XSS, amount_cents: '123456', at: '2026-03-01 03:30:05+00' },
  ]);

  it('download as the CLI renders CSV: centavos, ISO 8601, neutralised text', () => {
    expect(tableCsv(table)).toBe(renderCsv(columns, table.rows));
    expect(tableCsv(table)).toBe(
      `id,customer_name,amount_cents,at\n7,${XSS},123456,2026-03-01T03:30:05.000Z\n`,
    );
  });

  it('show reais, São Paulo times, links, and escaped text', () => {
    const out = tableHtml(table, '/console/x?csv=sales').text;
    expect(out).toContain('<a href="/console/sales/7">7</a>');
    expect(out).toContain('R$ 1.234,56');
    expect(out).toContain('01/03/2026 00:30:05');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).not.toContain('<img');
    expect(out).toContain('href="/console/x?csv=sales" download');
  });
});

describe('the sign-in cookie', () => {
  const token = 'admin-token-0123456789abcdef';
  const now = 1_800_000_000;

  it('is signed with the token, not the token itself, and expires', () => {
    const value = issueSession(token, now);
    expect(value).not.toContain(token);
    expect(sessionIsValid(token, value, now)).toBe(true);
    expect(sessionIsValid(token, value, now + SESSION_SECONDS)).toBe(true);
    expect(sessionIsValid(token, value, now + SESSION_SECONDS + 1)).toBe(false);
    expect(sessionIsValid('another-token-0123456789', value, now)).toBe(false);
  });

  it('refuses a value altered in any way', () => {
    const value = issueSession(token, now);
    const [issued, signature = ''] = value.split('.');
    expect(sessionIsValid(token, `${Number(issued) + 1}.${signature}`, now)).toBe(false);
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(sessionIsValid(token, `${issued}.${flipped}`, now)).toBe(false);
    expect(sessionIsValid(token, token, now)).toBe(false);
    expect(sessionIsValid(token, null, now)).toBe(false);
  });

  it('is HttpOnly and SameSite=Strict, Secure over HTTPS, read back from a Cookie header', () => {
    const value = issueSession(token, now);
    expect(sessionCookie(value, false)).toBe(
      `paymirror_console=${value}; Path=/console; Max-Age=43200; HttpOnly; SameSite=Strict`,
    );
    expect(sessionCookie(value, true)).toMatch(/; Secure$/);
    expect(sessionCookieOf({ cookie: `a=b; paymirror_console=${value}; c=d` })).toBe(value);
    expect(sessionCookieOf({})).toBeNull();
  });
});
