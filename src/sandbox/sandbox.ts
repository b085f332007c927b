/**
 * createSandbox: wires the store, the notifier, the dispatcher and the HTTP app together.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Cents } from '../domain/money.js';
import { createDeliveryLog } from './delivery/deliveryLog.js';
import type { DeliveryAttemptEntry } from './delivery/deliveryLog.js';
import { createDispatcher } from './delivery/dispatcher.js';
import { createFaultInjector } from './delivery/faults.js';
import type { Faults } from './delivery/faults.js';
import type { SaleRecord, WithdrawalRecord } from './domain/records.js';
import { createSandboxApp } from './http/app.js';
import { createNotifier } from './notifier.js';
import { resolveSandboxSettings } from './options.js';
import type { SandboxOptions } from './options.js';
import type { SandboxRuntime } from './runtime.js';
import { createStore } from './store.js';

export interface SandboxState {
  readonly sales: ReadonlyMap<number, Readonly<SaleRecord>>;
  readonly withdrawals: ReadonlyMap<number, Readonly<WithdrawalRecord>>;
  /** Available balance in centavos; negative after a refund the balance could not cover. */
  readonly balanceCents: Cents;
  /** Blocked financial reserve (MED, chargeback) in centavos. */
  readonly reserveCents: Cents;
  readonly faults: Readonly<Faults>;
  readonly deliveries: readonly DeliveryAttemptEntry[];
}

export interface Sandbox {
  readonly app: Express;
  /** Port 0 picks a free port; the resolved URL is returned. */
  listen(port: number, host?: string): Promise<{ url: string }>;
  /** Stops retries and timers, aborts deliveries in flight, closes the server. */
  close(): Promise<void>;
  readonly state: SandboxState;
  /** Resolves when no notification delivery is pending or in flight. */
  idle(): Promise<void>;
}

export class SandboxListenError extends Error {
  override readonly name = 'SandboxListenError';
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const settings = resolveSandboxSettings(options);
  const runtime: SandboxRuntime = {
    webhookUrl: settings.webhookUrl,
    postbackSecret: settings.postbackSecret,
    cashoutBlock: null,
    salesForbidden: false,
  };
  const faults = createFaultInjector(settings.faults, settings.random);
  const deliveryLog = createDeliveryLog(settings.deliveryLogLimit);
  const dispatcher = createDispatcher({
    faults,
    log: deliveryLog,
    logger: settings.logger,
    now: settings.now,
    retryBaseMs: settings.retryBaseMs,
    maxAttempts: settings.maxAttempts,
    timeoutMs: settings.deliveryTimeoutMs,
    concurrency: settings.deliveryConcurrency,
    reorderMaxHoldMs: settings.reorderMaxHoldMs,
  });
  const notifier = createNotifier({
    userId: settings.userId,
    user: settings.user,
    targets: { webhookUrl: () => runtime.webhookUrl, postbackSecret: () => runtime.postbackSecret },
    faults,
    send: (notification) => dispatcher.submit(notification),
  });
  const store = createStore({
    userId: settings.userId,
    initialBalanceCents: settings.initialBalanceCents,
    firstId: settings.firstId,
    pixExpiryMs: settings.pixExpiryMs,
    merchantName: settings.user.name,
    now: settings.now,
    listener: notifier,
  });
  const app = createSandboxApp({
    store,
    runtime,
    account: {
      publicKey: settings.publicKey,
      privateKey: settings.privateKey,
      userId: settings.userId,
    },
    foreignUserId: settings.foreignUserId,
    faults,
    deliveryLog,
    pendingDeliveries: () => dispatcher.pendingCount(),
    logger: settings.logger,
  });

  let server: Server | null = null;

  return {
    app,
    listen(port, host = '127.0.0.1') {
      if (server) return Promise.reject(new SandboxListenError('the sandbox is already listening'));
      const listening = createServer(app);
      server = listening;
      return new Promise((resolve, reject) => {
        listening.once('error', (error) => {
          server = null;
          reject(
            new SandboxListenError(`cannot listen on ${host}:${port}: ${error.message}`, {
              cause: error,
            }),
          );
        });
        listening.listen(port, host, () => {
          const address = listening.address() as AddressInfo;
          const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          const url = `http://${hostPart}:${address.port}`;
          settings.logger.info(
            { url, userId: settings.userId, webhookUrl: runtime.webhookUrl },
            'sandbox gateway listening',
          );
          resolve({ url });
        });
      });
    },
    async close() {
      store.close();
      await dispatcher.close();
      const closing = server;
      server = null;
      if (!closing) return;
      await new Promise<void>((resolve, reject) => {
        closing.close((error) => (error ? reject(error) : resolve()));
        closing.closeAllConnections();
      });
    },
    state: {
      sales: store.sales,
      withdrawals: store.withdrawals,
      get balanceCents() {
        return store.availableCents();
      },
      get reserveCents() {
        return store.reserveCents();
      },
      get faults() {
        return faults.current();
      },
      get deliveries() {
        return deliveryLog.list();
      },
    },
    idle: () => dispatcher.idle(),
  };
}
