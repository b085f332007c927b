/**
 * The demo's plan as data: which sales to create (method, amount, items, customer) and which
 * status moves to drive each through (docs/gateway.md 3.1), and which withdrawals to request (3.2).
 * Built from a seed, so the same options give the same plan.
 */
import type { Cents } from '../domain/money.js';
import type { SaleStatus } from '../domain/saleMachine.js';
import type { PixKeyType } from '../gateway/index.js';
import { digits, intBetween, pick, pickWeighted, seededRandom, type Random } from './random.js';

type DemoPaymentMethod = 'PIX' | 'CREDIT_CARD' | 'DEBIT_CARD' | 'BOLETO';

/** One path of docs/gateway.md 3.1: the moves after creation (cards start at EM_PROCESSAMENTO). */
export interface SalePath {
  readonly name: string;
  readonly method: DemoPaymentMethod;
  readonly moves: readonly SaleStatus[];
  /** How often the path comes up after every path has appeared once. */
  readonly weight: number;
}

const pixPaths: readonly SalePath[] = [
  { name: 'pix paid', method: 'PIX', moves: ['PAGO'], weight: 10 },
  { name: 'pix refunded', method: 'PIX', moves: ['PAGO', 'ESTORNADO'], weight: 2 },
  { name: 'pix expired', method: 'PIX', moves: ['CANCELADO'], weight: 3 },
  { name: 'pix MED won', method: 'PIX', moves: ['PAGO', 'MED', 'PAGO'], weight: 1 },
  { name: 'pix MED lost', method: 'PIX', moves: ['PAGO', 'MED', 'ESTORNADO'], weight: 1 },
  { name: 'pix pending', method: 'PIX', moves: [], weight: 2 },
  { name: 'pix failed then paid', method: 'PIX', moves: ['FALHA', 'PAGO'], weight: 1 },
  { name: 'pix failed then cancelled', method: 'PIX', moves: ['FALHA', 'CANCELADO'], weight: 1 },
];

const boletoPaths: readonly SalePath[] = [
  { name: 'boleto paid', method: 'BOLETO', moves: ['PAGO'], weight: 5 },
  { name: 'boleto expired', method: 'BOLETO', moves: ['CANCELADO'], weight: 3 },
  { name: 'boleto refunded', method: 'BOLETO', moves: ['PAGO', 'ESTORNADO'], weight: 1 },
  { name: 'boleto pending', method: 'BOLETO', moves: [], weight: 2 },
  { name: 'boleto failed then paid', method: 'BOLETO', moves: ['FALHA', 'PAGO'], weight: 1 },
];

function cardPaths(method: 'CREDIT_CARD' | 'DEBIT_CARD', label: string): SalePath[] {
  return [
    { name: `${label} paid`, method, moves: ['PAGO'], weight: 8 },
    { name: `${label} refused`, method, moves: ['RECUSADO'], weight: 3 },
    { name: `${label} refunded`, method, moves: ['PAGO', 'ESTORNADO'], weight: 1 },
    {
      name: `${label} chargeback reversed`,
      method,
      moves: ['PAGO', 'CHARGEBACK', 'PAGO'],
      weight: 1,
    },
    {
      name: `${label} chargeback confirmed`,
      method,
      moves: ['PAGO', 'CHARGEBACK', 'ESTORNADO'],
      weight: 1,
    },
    { name: `${label} failed then paid`, method, moves: ['FALHA', 'PAGO'], weight: 1 },
    { name: `${label} failed then cancelled`, method, moves: ['FALHA', 'CANCELADO'], weight: 1 },
    { name: `${label} awaiting processor`, method, moves: [], weight: 1 },
  ];
}

const byMethod: readonly (readonly SalePath[])[] = [
  pixPaths,
  cardPaths('CREDIT_CARD', 'credit card'),
  boletoPaths,
  cardPaths('DEBIT_CARD', 'debit card'),
];

/**
 * Every path, interleaved by method and most common first: a small scenario still gets every
 * method and the main paths; one of at least SALE_PATHS.length sales covers every path.
 */
export const SALE_PATHS: readonly SalePath[] = (() => {
  const longest = Math.max(...byMethod.map((paths) => paths.length));
  const out: SalePath[] = [];
  for (let i = 0; i < longest; i += 1) {
    for (const paths of byMethod) {
      const path = paths[i];
      if (path) out.push(path);
    }
  }
  return out;
})();

export interface PlannedSale {
  readonly path: string;
  readonly method: DemoPaymentMethod;
  readonly moves: readonly SaleStatus[];
  readonly amountCents: Cents;
  readonly items: readonly {
    readonly title: string;
    readonly unitPriceCents: Cents;
    readonly quantity: number;
  }[];
  readonly customer: {
    readonly name: string;
    readonly email: string;
    readonly document: string;
    readonly phone: string;
  };
  /** Card sales only. */
  readonly card: { readonly brand: string; readonly lastFour: string } | null;
  /** Credit card only. */
  readonly installments: number | null;
}

export type WithdrawalKind = 'completed' | 'rejected' | 'insufficient';

export interface PlannedWithdrawal {
  readonly kind: WithdrawalKind;
  /** 'above-balance': decided when it is requested, to exceed the available balance. */
  readonly amountCents: Cents | 'above-balance';
  readonly pixKey: string;
  readonly pixKeyType: PixKeyType;
  /** Moves after the gateway accepted it (PENDING). */
  readonly moves: readonly ('PROCESSING' | 'COMPLETED' | 'REJECTED')[];
}

export interface Scenario {
  readonly seed: number;
  readonly sales: readonly PlannedSale[];
  readonly withdrawals: readonly PlannedWithdrawal[];
}

/** 5 completed, 3 rejected, 2 refused for insufficient balance in every 10. */
const WITHDRAWAL_CYCLE: readonly WithdrawalKind[] = [
  'completed',
  'rejected',
  'insufficient',
  'completed',
  'completed',
  'rejected',
  'completed',
  'insufficient',
  'completed',
  'rejected',
];

const FIRST_NAMES = ['Ana', 'Bruno', 'Carla', 'Diego', 'Eduarda', 'Felipe', 'Gabriela', 'Heitor'];
const LAST_NAMES = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Pereira', 'Lima', 'Costa', 'Almeida'];
const PRODUCTS = [
  'Curso de fotografia',
  'E-book de receitas',
  'Mentoria individual',
  'Assinatura mensal',
  'Workshop online',
  'Pacote de templates',
];
const CARD_BRANDS = ['VISA', 'MASTERCARD', 'ELO', 'AMEX', 'HIPERCARD'];

export interface ScenarioOptions {
  readonly sales: number;
  readonly withdrawals: number;
  readonly seed: number;
}

export function buildScenario(options: ScenarioOptions): Scenario {
  // The sandbox's fault decisions draw from the seed itself; the plan from a derived one.
  const random = seededRandom((options.seed ^ 0x9e3779b9) >>> 0);
  const sales = Array.from({ length: options.sales }, (_, index) =>
    planSale(random, index, SALE_PATHS[index] ?? pickWeighted(random, SALE_PATHS)),
  );
  const withdrawals = Array.from({ length: options.withdrawals }, (_, index) =>
    planWithdrawal(random, index, WITHDRAWAL_CYCLE[index % WITHDRAWAL_CYCLE.length] ?? 'completed'),
  );
  return { seed: options.seed, sales, withdrawals };
}

function planSale(random: Random, index: number, path: SalePath): PlannedSale {
  // R$ 10,00 to R$ 500,00, any centavos.
  const amountCents = intBetween(random, 1_000, 50_000);
  const split = random() < 0.3 ? intBetween(random, 500, amountCents - 500) : amountCents;
  const items =
    split === amountCents
      ? [{ title: pick(random, PRODUCTS), unitPriceCents: amountCents, quantity: 1 }]
      : [
          { title: pick(random, PRODUCTS), unitPriceCents: split, quantity: 1 },
          { title: pick(random, PRODUCTS), unitPriceCents: amountCents - split, quantity: 1 },
        ];
  const first = pick(random, FIRST_NAMES);
  const last = pick(random, LAST_NAMES);
  const isCard = path.method === 'CREDIT_CARD' || path.method === 'DEBIT_CARD';
  return {
    path: path.name,
    method: path.method,
    moves: path.moves,
    amountCents,
    items,
    customer: {
      name: `${first} ${last}`,
      email: `${first}.${last}.${index + 1}@example.com`.toLowerCase(),
      document: digits(random, 11),
      phone: `119${digits(random, 8)}`,
    },
    card: isCard ? { brand: pick(random, CARD_BRANDS), lastFour: digits(random, 4) } : null,
    installments: path.method === 'CREDIT_CARD' ? intBetween(random, 1, 12) : null,
  };
}

function planWithdrawal(random: Random, index: number, kind: WithdrawalKind): PlannedWithdrawal {
  const keyType = pick(random, ['EMAIL', 'CPF', 'PHONE', 'RANDOM'] as const);
  const pixKey =
    keyType === 'EMAIL'
      ? `saque.${index + 1}@example.com`
      : keyType === 'CPF'
        ? digits(random, 11)
        : keyType === 'PHONE'
          ? `+55119${digits(random, 8)}`
          : `${digits(random, 8)}-${digits(random, 4)}-${digits(random, 4)}-${digits(random, 12)}`;
  return {
    kind,
    // R$ 100,00 (the minimum) to R$ 400,00.
    amountCents: kind === 'insufficient' ? 'above-balance' : intBetween(random, 10_000, 40_000),
    pixKey,
    pixKeyType: keyType,
    moves:
      kind === 'completed'
        ? ['PROCESSING', 'COMPLETED']
        : kind === 'rejected'
          ? ['PROCESSING', 'REJECTED']
          : [],
  };
}
