/**
 * Carries a scenario out against the sandbox, one call at a time (so that the sandbox's
 * seeded fault decisions come in the same order on every run):
 *
 *   1. every sale is created through the gateway API (src/operations/createSale: the mirror
 *      has it from creation, with postbackUrl = paymirror's /postbacks);
 *   2. then, in rounds, the next status move of every sale (control API), so that the
 *      notifications of different sales interleave as they would over days;
 *   3. withdrawals are requested after the first round (when sales have paid into the
 *      balance) through src/operations/requestCashout, and moved in the following rounds.
 */
import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import type { Cents } from '../domain/money.js';
import type { WatchPolicy } from '../domain/reconcileSchedule.js';
import type { GatewayClient } from '../gateway/index.js';
import { createSale } from '../operations/createSale.js';
import { requestCashout } from '../operations/requestCashout.js';
import { DemoError } from './errors.js';
import type { Progress } from './progress.js';
import type { PlannedSale, PlannedWithdrawal, Scenario, WithdrawalKind } from './scenario.js';

export interface DriveDeps {
  /** The sandbox's base URL (its control API lives under /_sandbox). */
  readonly sandboxUrl: string;
  /** paymirror's postback route, given to every sale. */
  readonly postbackUrl: string;
  readonly sql: Sql;
  readonly gateway: GatewayClient;
  readonly policy: WatchPolicy;
  readonly logger: Logger;
  /** The sandbox's available balance now, for the cashouts meant to exceed it. */
  readonly availableCents: () => Cents;
  readonly progress: Progress;
  readonly signal?: AbortSignal;
}

interface RefusedCashout {
  readonly kind: WithdrawalKind;
  readonly amountCents: Cents;
  readonly status: number | null;
  readonly errorType: string | null;
}

export interface DriveReport {
  /** Gateway ids of the created sales, in plan order. */
  readonly saleIds: readonly number[];
  /** Gateway ids of the accepted withdrawals. */
  readonly withdrawalIds: readonly number[];
  /** Cashouts the gateway refused (422): no withdrawal exists for them. */
  readonly refusedCashouts: readonly RefusedCashout[];
  /** Status moves made through the control API. */
  readonly moves: number;
}

/** The largest cashout the gateway accepts (docs/gateway.md 8): R$ 100.000,00. */
const MAX_CASHOUT_CENTS = 10_000_000;
const MIN_CASHOUT_CENTS = 10_000;

export async function driveScenario(scenario: Scenario, deps: DriveDeps): Promise<DriveReport> {
  const total =
    scenario.sales.length +
    scenario.sales.reduce((sum, sale) => sum + sale.moves.length, 0) +
    scenario.withdrawals.length +
    scenario.withdrawals.reduce((sum, withdrawal) => sum + withdrawal.moves.length, 0);
  let done = 0;
  const tick = (count = 1) => {
    done += count;
    deps.progress.step('driving the scenario', done, total);
  };
  deps.progress.step('driving the scenario', 0, total);

  const saleIds: number[] = [];
  for (const sale of scenario.sales) {
    deps.signal?.throwIfAborted();
    saleIds.push(await createPlannedSale(sale, deps));
    tick();
  }

  const accepted: { id: number; plan: PlannedWithdrawal }[] = [];
  const refusedCashouts: RefusedCashout[] = [];
  let moves = 0;
  const maxSaleMoves = Math.max(0, ...scenario.sales.map((sale) => sale.moves.length));
  const maxWithdrawalMoves = Math.max(0, ...scenario.withdrawals.map((w) => w.moves.length));
  const rounds = Math.max(
    maxSaleMoves,
    scenario.withdrawals.length > 0 ? maxWithdrawalMoves + 1 : 0,
  );

  for (let round = 0; round < rounds; round += 1) {
    for (const [index, sale] of scenario.sales.entries()) {
      const to = sale.moves[round];
      const id = saleIds[index];
      if (to === undefined || id === undefined) continue;
      deps.signal?.throwIfAborted();
      await control(deps, `/sales/${id}/status`, { status: to });
      moves += 1;
      tick();
    }
    if (round === 0) {
      for (const plan of scenario.withdrawals) {
        deps.signal?.throwIfAborted();
        const outcome = await requestPlannedCashout(plan, deps);
        if (outcome.kind === 'accepted') accepted.push({ id: outcome.id, plan });
        else {
          refusedCashouts.push(outcome.refused);
          tick(plan.moves.length); // its moves will not happen
        }
        tick();
      }
    } else {
      for (const { id, plan } of accepted) {
        const to = plan.moves[round - 1];
        if (to === undefined) continue;
        deps.signal?.throwIfAborted();
        await control(deps, `/withdrawals/${id}/status`, { status: to });
        moves += 1;
        tick();
      }
    }
  }
  if (total === 0) deps.progress.step('driving the scenario', 0, 0);
  return { saleIds, withdrawalIds: accepted.map(({ id }) => id), refusedCashouts, moves };
}

async function createPlannedSale(sale: PlannedSale, deps: DriveDeps): Promise<number> {
  const created = await createSale(
    { sql: deps.sql, gateway: deps.gateway, policy: deps.policy },
    {
      amountCents: sale.amountCents,
      paymentMethod: sale.method,
      customer: sale.customer,
      items: sale.items.map((item) => ({ ...item, tangible: false })),
      postbackUrl: deps.postbackUrl,
      extra: {
        ...(sale.card ? { card: sale.card } : {}),
        ...(sale.installments !== null ? { installments: sale.installments } : {}),
      },
    },
  );
  return created.id;
}

type CashoutOutcome =
  | { readonly kind: 'accepted'; readonly id: number }
  | { readonly kind: 'refused'; readonly refused: RefusedCashout };

async function requestPlannedCashout(
  plan: PlannedWithdrawal,
  deps: DriveDeps,
): Promise<CashoutOutcome> {
  const amountCents =
    plan.amountCents === 'above-balance'
      ? Math.min(MAX_CASHOUT_CENTS, Math.max(MIN_CASHOUT_CENTS, deps.availableCents() + 10_000))
      : plan.amountCents;
  const result = await requestCashout(
    { sql: deps.sql, gateway: deps.gateway, policy: deps.policy, logger: deps.logger },
    { amountCents, pixKey: plan.pixKey, pixKeyType: plan.pixKeyType },
  );
  if (result.kind === 'succeeded') return { kind: 'accepted', id: result.withdrawal.id };
  if (result.kind === 'blocked') {
    throw new DemoError(`cashout attempt ${result.blockedBy.id} has no known outcome yet`);
  }
  // A refusal with a reason (422) creates no withdrawal; anything else is a failure.
  const { error } = result;
  if (result.kind === 'rejected' && result.error.status === 422) {
    return {
      kind: 'refused',
      refused: {
        kind: plan.kind,
        amountCents,
        status: result.error.status,
        errorType: result.error.errorType,
      },
    };
  }
  throw error;
}

async function control(deps: DriveDeps, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${deps.sandboxUrl}/_sandbox${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new DemoError(`sandbox ${path} ${JSON.stringify(body)}: HTTP ${response.status} ${text}`);
  }
}
