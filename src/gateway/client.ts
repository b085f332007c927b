import { checkSameId, decodeAnswer } from './decode.js';
import { resolveOptions } from './options.js';
import type { GatewayClientOptions } from './options.js';
import { GatewayError } from './gatewayError.js';
import { createRedactor } from './redact.js';
import { cashoutBody, saleBody } from './requestBodies.js';
import { createdSaleFromWire, transactionFromWire, withdrawalFromWire } from './toDomain.js';
import { createTransport } from './transport.js';
import type { GatewayClient } from './types.js';
import { createdSaleWire, transactionWire, withdrawalWire } from './wireSchemas.js';

/** Path ids are positive safe integers; anything else is a bug on our side, caught before I/O. */
function pathId(name: string, id: number): number {
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new RangeError(`${name} must be a positive safe integer, got ${String(id)}`);
  }
  return id;
}

/**
 * The gateway's four endpoints (docs/gateway.md 4), typed in paymirror's units. GETs retry
 * transient failures; POSTs are sent once (a cashout moves money, a sale would be duplicated).
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const settings = resolveOptions(options);
  const redact = createRedactor([settings.publicKey, settings.privateKey]);
  const send = createTransport(settings, redact);

  return {
    async getTransaction(id) {
      const asked = pathId('transaction id', id);
      const endpoint = 'getTransaction';
      const text = await send({
        endpoint,
        method: 'GET',
        path: `/api/transactions/${asked}`,
        retry: true,
      });
      const transaction = decodeAnswer(
        endpoint,
        text,
        transactionWire,
        transactionFromWire,
        redact,
      );
      checkSameId(endpoint, asked, transaction.id);
      return transaction;
    },

    async getWithdrawal(id) {
      const asked = pathId('withdrawal id', id);
      const endpoint = 'getWithdrawal';
      const text = await send({
        endpoint,
        method: 'GET',
        path: `/api/public/cashout/${asked}`,
        retry: true,
      });
      const withdrawal = decodeAnswer(endpoint, text, withdrawalWire, withdrawalFromWire, redact);
      checkSameId(endpoint, asked, withdrawal.id);
      return withdrawal;
    },

    async createSale(request) {
      const endpoint = 'createSale';
      const body = saleBody(request);
      const text = await send({ endpoint, method: 'POST', path: '/api/sales', body, retry: false });
      return decodeAnswer(endpoint, text, createdSaleWire, createdSaleFromWire, redact);
    },

    async requestCashout(request) {
      const endpoint = 'requestCashout';
      const body = cashoutBody(request);
      const text = await send({
        endpoint,
        method: 'POST',
        path: '/api/public/cashout',
        body,
        retry: false,
      });
      return decodeAnswer(endpoint, text, withdrawalWire, withdrawalFromWire, redact);
    },

    async checkBaseUrl() {
      const path = `/api/transactions/${BASE_URL_PROBE_ID}`;
      try {
        await send({ endpoint: 'checkBaseUrl', method: 'GET', path, retry: false, ungated: true });
        return { kind: 'unchecked', detail: `GET ${path} answered 2xx, not 400` };
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        if (error.status === 400) return { kind: 'ok' };
        const answer = error.status === null ? error.message : `HTTP ${error.status}`;
        return error.status === 404
          ? { kind: 'wrong', status: 404, detail: `GET ${path} answered 404 (${error.message})` }
          : { kind: 'unchecked', detail: `GET ${path}: ${answer}, not 400` };
      }
    },
  };
}

/** Not a number: the read answers 400 (docs/gateway.md 7.2) on the right base path. */
const BASE_URL_PROBE_ID = 'paymirror-base-url-check';
