import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../sandbox/support/harness.js';
import { postbackBody, sign, webhookSaleBody } from '../support/fixtures.js';
import { useTestApp } from '../support/testApp.js';

// No answer names the framework that made it (X-Powered-By: Express): not paymirror's public
// and admin listeners, not bull-board's own Express app mounted in the admin listener, not the
// console, not the sandbox.
const ADMIN_TOKEN = 'admin-token-powered-by-0123456789';
const t = useTestApp({ env: () => ({ ADMIN_TOKEN }) });
let sandbox: Harness;

beforeAll(async () => {
  sandbox = await startHarness();
});
afterAll(async () => {
  await sandbox?.close();
});

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function headerOf(url: string, init: RequestInit = {}): Promise<[number, string | null]> {
  const answer = await fetch(url, init);
  await answer.arrayBuffer();
  return [answer.status, answer.headers.get('x-powered-by')];
}

describe('X-Powered-By', () => {
  it('is absent from every answer of the public listener', async () => {
    const url = t.app.url;
    const json = { 'content-type': 'application/json' };
    const requests: [string, RequestInit][] = [
      ['/healthz', {}],
      ['/readyz', {}],
      ['/no-such-path', {}],
      [
        '/postbacks',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify(postbackBody({ id: 1, status: 'PAGO' })),
        },
      ],
      ['/postbacks?x=1', { method: 'POST', headers: json, body: '{}' }],
      [
        '/postbacks',
        { method: 'POST', headers: { ...json, 'x-signature': sign('[]') }, body: '[]' },
      ],
      ['/postbacks', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }],
      ['/webhooks/not-the-token', { method: 'POST', headers: json, body: '{}' }],
      ['/webhooks/%E0%A4%A', { method: 'POST', headers: json, body: '{}' }],
      [
        '/webhooks/x/',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify(webhookSaleBody({ id: 1, status: 'PAGO' })),
        },
      ],
      ['/metrics', {}],
    ];
    const statuses = new Set<number>();
    for (const [path, init] of requests) {
      const [status, poweredBy] = await headerOf(`${url}${path}`, init);
      statuses.add(status);
      expect(poweredBy, `${init.method ?? 'GET'} ${path} (${status})`).toBeNull();
    }
    // The answers came from the routes, the error handler and the fallback alike.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400, 401, 404, 415]));
  });

  it('is absent from the admin listener: /metrics, bull-board (its own Express app), the console', async () => {
    const url = t.app.metricsUrl;
    const paths: [string, Record<string, string>, number][] = [
      ['/metrics', {}, 200],
      ['/healthz', {}, 200],
      ['/admin/queues', {}, 401],
      ['/admin/queues', asAdmin, 200],
      ['/admin/queues/api/queues', asAdmin, 200],
      ['/admin/queues/static/no-such-file.js', asAdmin, 404],
      ['/console', {}, 401],
      ['/console', asAdmin, 200],
      ['/console/sales/1', asAdmin, 404],
    ];
    for (const [path, headers, expected] of paths) {
      const [status, poweredBy] = await headerOf(`${url}${path}`, { headers });
      expect(status, path).toBe(expected);
      expect(poweredBy, `${path} (${status})`).toBeNull();
    }
  });

  it('is absent from the sandbox gateway', async () => {
    const answers = [
      await sandbox.call('GET', '/api/transactions/1'),
      await sandbox.call('GET', '/api/transactions/1', { keys: 'missing' }),
      await sandbox.call('POST', '/api/public/cashout', { body: {} }),
      await sandbox.control('/_sandbox/no-such-control'),
    ];
    for (const answer of answers) expect(answer.headers.get('x-powered-by')).toBeNull();
    const [, poweredBy] = await headerOf(`${sandbox.url}/nowhere`);
    expect(poweredBy).toBeNull();
  });
});
