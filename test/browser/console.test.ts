import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo, type DemoResult, type RunningDemo } from '../../src/demo/runDemo.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { waitFor } from '../support/paymirror.js';
import {
  createTestQueuePrefix,
  useTestDatabase,
  type TestQueuePrefix,
} from '../support/services.js';

// The console in a real browser, against the demo's data: paymirror fed by the sandbox gateway
// (src/demo/runDemo.ts), kept running while Chromium reads every page. A screenshot of each
// page goes to test-artifacts/console/ (git-ignored).
const ARTIFACTS = 'test-artifacts/console';
const ADMIN_TOKEN = 'browser-admin-token-0123456789';
const XSS = '<img src=x onerror=alert(1)>';

const title = `the console in Chromium${chromiumMissing ? ` (skipped: ${chromiumMissing})` : ''}`;

describe.skipIf(chromiumMissing !== null)(title, () => {
  const database = useTestDatabase();
  let queue: TestQueuePrefix;
  let demo: Promise<DemoResult>;
  let running: RunningDemo;
  let finish: () => void = () => undefined;
  let browser: Browser;
  let signedIn: BrowserContext;
  let xssSaleId = 0;
  let unknownAttemptId = 0;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    queue = createTestQueuePrefix();
    const ready = new Promise<RunningDemo>((resolve, reject) => {
      demo = runDemo({
        databaseUrl: database().url,
        redisUrl: queue.redisUrl,
        queuePrefix: queue.prefix,
        sales: 24,
        withdrawals: 3,
        seed: 11,
        faults: true,
        drainTimeoutMs: 30_000,
        adminToken: ADMIN_TOKEN,
        whileRunning: (demoRunning) => {
          resolve(demoRunning);
          return new Promise<void>((done) => (finish = done));
        },
      });
      demo.then(() => reject(new Error('the demo ended before the browser looked')), reject);
    });
    running = await ready;
    ({ xssSaleId, unknownAttemptId } = await addRecordsToLookAt(running));
    browser = await launchChromium();
    signedIn = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signedIn.newPage();
    await page.goto(`${running.consoleUrl}/login`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${running.consoleUrl}/deliveries`);
    await page.close();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    finish();
    await demo?.catch(() => undefined);
    await queue?.drop();
  });

  /** A signed-in page that fails the test on a dialog, a script error or a CSP violation. */
  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const page = await signedIn.newPage();
    const problems: string[] = [];
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    const answer = await page.goto(`${running.consoleUrl}${path}`);
    expect(answer?.status(), path).toBe(200);
    return { page, problems };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
  }

  it('refuses access without the token, and with a wrong one (401)', async () => {
    const anonymous = await browser.newContext();
    try {
      const page = await anonymous.newPage();
      for (const path of ['/deliveries', '/sales/1', '/totals']) {
        expect((await page.goto(`${running.consoleUrl}${path}`))?.status(), path).toBe(401);
        expect(await page.getByLabel('Admin token').count(), path).toBe(1);
        expect(await page.locator('table').count()).toBe(0);
      }
      await shoot(page, 'sign-in');
      await page.getByLabel('Admin token').fill('not-the-admin-token-000');
      const [wrong] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/console/login')),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      expect(wrong.status()).toBe(401);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('not the admin token');
      const bearer = await anonymous.request.get(`${running.consoleUrl}/deliveries`, {
        headers: { authorization: 'Bearer not-the-admin-token-000' },
      });
      expect(bearer.status()).toBe(401);
    } finally {
      await anonymous.close();
    }
  });

  it('tails the deliveries, newest first, and refreshes them', async () => {
    const { page, problems } = await open('/deliveries');
    const ids = await page.locator('#table-deliveries tbody tr td:first-child').allTextContents();
    const numbers = ids.map(Number);
    expect(numbers.length).toBeGreaterThan(20);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    await expect(page.locator('#auto-refresh').isChecked()).resolves.toBe(true);
    await page.locator('#refreshed-at').filter({ hasText: 'Updated' }).waitFor({ timeout: 15_000 });
    await shoot(page, 'deliveries');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('labels every filter, and Tab reaches them in order', async () => {
    const { page, problems } = await open('/deliveries');
    const controls = await page.$$eval('form.filters input, form.filters select', (elements) =>
      elements.map((element) => ({
        id: element.id,
        label: ((element as unknown as Labelled).labels?.[0]?.textContent ?? '').trim(),
      })),
    );
    expect(controls.map((control) => control.id)).toEqual([
      'filter-channel',
      'filter-state',
      'filter-outcome',
      'filter-type',
      'filter-record',
      'filter-from',
      'filter-to',
    ]);
    for (const control of controls) expect(control.label, control.id).not.toBe('');
    const unlabelled = await page.$$eval('input:not([type=hidden]), select', (elements) =>
      elements.filter((e) => (e as unknown as Labelled).labels?.length === 0).map((e) => e.id),
    );
    expect(unlabelled).toEqual([]);

    await page.focus('#filter-channel');
    const reached = ['filter-channel'];
    for (let i = 0; i < 40 && reached.at(-1) !== 'filter-submit'; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => {
        const active = (globalThis as unknown as { document: { activeElement: Focused | null } })
          .document.activeElement;
        return active?.id || (active?.textContent === 'Filter' ? 'filter-submit' : active?.tagName);
      });
      // A date field takes several Tabs (day, month, year…), all on the same input.
      if (id && id !== reached.at(-1)) reached.push(id);
    }
    expect(reached).toEqual([...controls.map((control) => control.id), 'filter-submit']);

    // Choosing with the keyboard and submitting (Enter in a text field) filters the tail.
    await page.focus('#filter-channel');
    await page.keyboard.press('ArrowDown');
    await expect(page.locator('#filter-channel').inputValue()).resolves.toBe('postback');
    await page.focus('#filter-record');
    await Promise.all([page.waitForURL(/channel=postback/), page.keyboard.press('Enter')]);
    const channels = await page
      .locator('#table-deliveries tbody tr td:nth-child(3)')
      .allTextContents();
    expect(new Set(channels.map((text) => text.trim())).size).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("tells a sale's story: its row, history, deliveries, gateway reads, discrepancies", async () => {
    const [row] = await running.sql<{ resource_id: string }[]>`
      select resource_id from status_history
       where resource_type = 'sale' and not entered order by id limit 1`;
    const saleId = row ? Number(row.resource_id) : await anySaleWithReads(running);
    const { page, problems } = await open(`/sales/${saleId}`);
    await expect(page.locator('h1').textContent()).resolves.toContain(`Sale ${saleId}`);
    await expect(page.locator('section.why').textContent()).resolves.toMatch(/since .* set by/s);
    for (const caption of [
      "The mirror's row",
      'Status history',
      'Deliveries about it',
      "What the gateway's reads said",
      'Discrepancies',
      'Money journal',
    ]) {
      await expect(page.getByRole('heading', { name: caption }).count(), caption).resolves.toBe(1);
    }
    expect(await page.locator('#table-history tbody tr').count()).toBeGreaterThan(0);
    if (row) {
      await expect(
        page.locator('#table-history tr.observed').first().textContent(),
      ).resolves.toContain('observed, not entered');
    }
    const time = page.locator('#table-history time').first();
    await expect(time.getAttribute('title')).resolves.toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    await expect(
      page
        .getByText(/R\$ \d{1,3}(\.\d{3})*,\d\d/)
        .first()
        .isVisible(),
    ).resolves.toBe(true);
    await shoot(page, 'sale');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a customer's name as text: the markup in it never runs", async () => {
    const { page, problems } = await open(`/sales/${xssSaleId}`);
    await expect(page.getByText(XSS, { exact: true }).first().isVisible()).resolves.toBe(true);
    expect(await page.locator('main img').count()).toBe(0);
    const { page: tail, problems: tailProblems } = await open(
      `/deliveries?type=sale&record=${xssSaleId}`,
    );
    await tail.locator(`#table-deliveries tbody tr a`).first().click();
    await tail.waitForURL(/\/console\/deliveries\/\d+$/);
    await expect(tail.locator('pre.json').textContent()).resolves.toContain(XSS);
    expect(await tail.locator('main img').count()).toBe(0);
    await shoot(page, 'sale-with-markup-in-its-name');
    await shoot(tail, 'delivery');
    await page.waitForTimeout(300);
    expect(problems).toEqual([]);
    expect(tailProblems).toEqual([]);
    await page.close();
    await tail.close();
  });

  it("tells a withdrawal's story, with the cashout that asked for it", async () => {
    const [row] = await running.sql<{ withdrawal_id: string }[]>`
      select withdrawal_id from cashout_attempts
       where withdrawal_id is not null order by id limit 1`;
    expect(row).toBeDefined();
    const { page, problems } = await open(`/withdrawals/${row?.withdrawal_id}`);
    await expect(page.locator('h1').textContent()).resolves.toContain('Withdrawal');
    expect(await page.locator('#table-cashout-attempts tbody tr').count()).toBe(1);
    expect(await page.locator('#table-history tbody tr').count()).toBeGreaterThan(0);
    await expect(page.locator('#table-journal tbody tr').first().textContent()).resolves.toMatch(
      /withdrawal.*-R\$ \d/s,
    );
    await shoot(page, 'withdrawal');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the totals with a chart, open disputes with their age, and CSV downloads', async () => {
    const { page, problems } = await open('/totals');
    await page.locator('#daily-chart[data-drawn="true"]').waitFor({ timeout: 15_000 });
    const disputes = page.locator('#table-open-disputes tbody tr');
    await expect(disputes.filter({ hasText: String(xssSaleId) }).count()).resolves.toBe(1);
    await expect(disputes.first().textContent()).resolves.toMatch(/MED|CHARGEBACK/);
    await expect(page.locator('#table-sales tbody tr').count()).resolves.toBeGreaterThan(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#table-sales a.csv').click(),
    ]);
    expect(download.suggestedFilename()).toBe('paymirror-sales.csv');
    await shoot(page, 'totals');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the books by the day money moved, with a chart, and CSV downloads', async () => {
    const { page, problems } = await open('/books');
    await page.locator('#books-chart[data-drawn="true"]').waitFor({ timeout: 15_000 });
    await expect(page.locator('nav a[aria-current="page"]').textContent()).resolves.toBe('Books');
    const today = page.locator('#table-days tbody tr').last();
    await expect(today.textContent()).resolves.toMatch(/open.*R\$ \d/s);
    await expect(today.locator('time').first().getAttribute('title')).resolves.toMatch(
      /^\d{4}-\d\d-\d\d$/,
    );
    const kinds = await page.locator('#table-journal tbody tr td:nth-child(3)').allTextContents();
    expect(kinds.map((kind) => kind.trim())).toEqual(
      expect.arrayContaining(['payment', 'dispute_opened']),
    );
    await expect(page.locator('#table-months tbody tr').count()).resolves.toBeGreaterThan(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#table-journal a.csv').click(),
    ]);
    expect(download.suggestedFilename()).toBe('paymirror-journal.csv');
    await shoot(page, 'books');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists reconciliation runs and what each corrected', async () => {
    const { page, problems } = await open('/reconciliation');
    const runs = page.locator('#table-runs tbody tr');
    expect(await runs.count()).toBeGreaterThan(0);
    await runs.locator('a').first().click();
    await page.waitForURL(/\/console\/reconciliation\/runs\/\d+$/);
    await expect(page.locator('h1').textContent()).resolves.toContain('Reconciliation run');
    await shoot(page, 'reconciliation-run');
    await page.goBack();
    await shoot(page, 'reconciliation');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('puts the cashouts that need a decision first, with the command that records it', async () => {
    const { page, problems } = await open('/cashouts');
    const undecided = page.locator('#table-undecided tbody tr');
    await expect(undecided.count()).resolves.toBe(1);
    await expect(undecided.first().textContent()).resolves.toContain(
      `paymirror cashouts resolve ${unknownAttemptId} --withdrawal <id> | --not-paid`,
    );
    expect(await page.locator('#table-settled tbody tr').count()).toBeGreaterThan(0);
    await shoot(page, 'cashouts');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows queue depth per lane, the oldest pending delivery, the last run, the budget', async () => {
    const { page, problems } = await open('/health');
    const queues = await page.locator('#table-queues tbody tr td:first-child').allTextContents();
    expect(queues.map((name) => name.trim())).toEqual(
      expect.arrayContaining(['notifications', 'confirmations']),
    );
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('Oldest delivery still pending');
    expect(text).toMatch(/Last run\s*run \d+/);
    expect(text).toMatch(/1000 requests\/s/);
    await shoot(page, 'health');
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** What the page's elements are to these checks (the tests are typed without the DOM library). */
interface Labelled {
  readonly labels: { readonly length: number; readonly [index: number]: Focused } | null;
}
interface Focused {
  readonly id: string;
  readonly tagName: string;
  readonly textContent: string | null;
}

/**
 * Besides the demo's data: a sale whose customer name is markup, paid and then in MED (an
 * open dispute), and a cashout attempt whose outcome is unknown.
 */
async function addRecordsToLookAt(
  running: RunningDemo,
): Promise<{ xssSaleId: number; unknownAttemptId: number }> {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${running.sandboxUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300) throw new Error(`${path}: ${JSON.stringify(answer)}`);
    return answer;
  };
  // Every notification from here on arrives once, in order.
  await post('/_sandbox/faults', { duplicate: 0, reorder: 0, drop: 0, delay: 0 });
  const created = await post(
    '/api/sales',
    {
      amount: 432_100,
      paymentMethod: 'PIX',
      customer: { name: XSS, email: 'markup@example.com' },
      items: [{ title: XSS, unitPrice: 432_100, quantity: 1, tangible: false }],
      postbackUrl: `${running.paymirrorUrl}/postbacks`,
    },
    {
      'x-api-public-key': running.gatewayKeys.publicKey,
      'x-api-private-key': running.gatewayKeys.privateKey,
    },
  );
  const id = (created.sale as { id: number }).id;
  await post(`/_sandbox/sales/${id}/status`, { status: 'PAGO' });
  await waitFor(
    async () =>
      (await running.sql`select 1 from sales where id = ${id} and status = 'PAGO'`).length === 1,
    { what: `sale ${id} paid in the mirror`, timeoutMs: 20_000 },
  );
  await post(`/_sandbox/sales/${id}/status`, { status: 'MED' });
  await waitFor(
    async () =>
      (
        await running.sql`select 1 from sales where id = ${id} and status = 'MED'
                             and customer_name = ${XSS}`
      ).length === 1,
    { what: `sale ${id} in MED in the mirror`, timeoutMs: 20_000 },
  );
  const [attempt] = await running.sql<{ id: string }[]>`
    insert into cashout_attempts (amount_cents, pix_key, pix_key_type, outcome, detail)
    values (15000, 'maria@example.com', 'EMAIL', 'unknown', 'GatewayError: timed out after 10000 ms')
    returning id`;
  return { xssSaleId: id, unknownAttemptId: Number(attempt?.id) };
}

async function anySaleWithReads(running: RunningDemo): Promise<number> {
  const [row] = await running.sql<{ resource_id: string }[]>`
    select resource_id from status_history where resource_type = 'sale' order by id desc limit 1`;
  return Number(row?.resource_id);
}
