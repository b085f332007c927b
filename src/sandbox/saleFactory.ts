/**
 * Builds a new sale from a validated request: fees, the PIX charge (BR Code and QR image),
 * the boleto line, the card summary. The full card number is never stored.
 */
import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import type { Cents } from '../domain/money.js';
import { buildBoletoLine } from './domain/boletoCode.js';
import { saleFees } from './domain/fees.js';
import { buildPixBrCode } from './domain/pixBrCode.js';
import type { PixChargeRecord, SaleRecord } from './domain/records.js';
import type { SaleCreateRequest } from './requests.js';

const BOLETO_DUE_DAYS = 3;
const DAY_MS = 86_400_000;
const MERCHANT_CITY = 'SAO PAULO';

export interface SaleFactoryContext {
  readonly now: () => Date;
  /** The sandbox's own receiving PIX key, written into every BR Code. */
  readonly merchantPixKey: string;
  readonly merchantName: string;
  readonly pixExpiryMs: number | null;
  readonly nextItemId: () => number;
}

async function pixCharge(
  saleId: number,
  amountCents: Cents,
  createdAt: Date,
  context: SaleFactoryContext,
): Promise<PixChargeRecord> {
  const code = buildPixBrCode({
    merchantKey: context.merchantPixKey,
    merchantName: context.merchantName,
    merchantCity: MERCHANT_CITY,
    amountCents,
    txid: `SBX${saleId}`,
  });
  const qrCodeDataUri = await QRCode.toDataURL(code, { errorCorrectionLevel: 'M', margin: 2 });
  const expiresAt =
    context.pixExpiryMs === null ? null : new Date(createdAt.getTime() + context.pixExpiryMs);
  return { code, qrCodeDataUri, expiresAt };
}

export async function buildSale(
  id: number,
  ownerUserId: number,
  request: SaleCreateRequest,
  context: SaleFactoryContext,
): Promise<SaleRecord> {
  const createdAt = context.now();
  const { systemFeeCents, netAmountCents } = saleFees(request.amount, request.paymentMethod);
  const card = request.card;
  return {
    id,
    ownerUserId,
    status: 'PENDENTE',
    paymentMethod: request.paymentMethod,
    amountCents: request.amount,
    netAmountCents,
    systemFeeCents,
    reserveAmountCents: 0,
    customer: {
      name: request.customer.name,
      email: request.customer.email,
      document: request.customer.document ?? null,
      phone: request.customer.phone ?? null,
    },
    items: request.items.map((item) => ({
      id: context.nextItemId(),
      title: item.title,
      unitPriceCents: item.unitPrice,
      quantity: item.quantity,
      tangible: item.tangible,
    })),
    pix:
      request.paymentMethod === 'PIX'
        ? await pixCharge(id, request.amount, createdAt, context)
        : null,
    boletoCode:
      request.paymentMethod === 'BOLETO'
        ? buildBoletoLine({
            saleId: id,
            amountCents: request.amount,
            dueDate: new Date(createdAt.getTime() + BOLETO_DUE_DAYS * DAY_MS),
          })
        : null,
    cardLastFour: card ? (card.lastFour ?? card.number?.slice(-4) ?? null) : null,
    cardBrand: card?.brand ?? null,
    installments: request.paymentMethod === 'CREDIT_CARD' ? (request.installments ?? 1) : null,
    shipping: request.shipping ?? null,
    externalTransactionId: `sbx_ext_${randomUUID()}`,
    postbackUrl: request.postbackUrl ?? null,
    createdAt,
    completedAt: null,
    updatedAt: createdAt,
  };
}
