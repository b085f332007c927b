import type { Tx } from '../db/client.js';
import type { DiscrepancyInsert, HistoryInsert, SaleItemInsert } from '../db/rows.js';
import type { FieldDifference } from './compareFields.js';
import { recordKey, type ChangeContext } from './inputs.js';
import { insertDiscrepancies } from './sql/discrepancies.js';
import { insertHistory, seenStatuses } from './sql/history.js';
import { insertMissingItems, insertNewSalesItems, upsertGatewayItems } from './sql/items.js';

/** Item rows by sale id, then item id. */
type ItemsBySale = Map<number, Map<number, SaleItemInsert>>;

export type DiscrepancySource =
  /** A reconciliation pass: the mirror against the gateway's read. */
  | 'reconcile'
  /** A postback and a webhook of one sale event disagree. */
  | 'cross_channel'
  /** The worker's GET for a notification corrected a field the mirror held. */
  | 'confirmation'
  /** A webhook's claim the gateway did not confirm (gateway_value holds the claim). */
  | 'unconfirmed_webhook'
  /**
   * A read whose own amounts do not add up (a withdrawal's fees): gateway_value is the stated
   * value, mirror_value what its sibling fields imply; the stated one is stored.
   */
  | 'fee_arithmetic';

/**
 * Everything a batch of mirror inputs writes beside the mirror rows: status_history,
 * sale_items and discrepancies, gathered while the inputs are decided one after another and
 * written with one statement each. Also knows which statuses each record's history holds,
 * so an observation already recorded is not recorded twice.
 */
export class MirrorWrites {
  private readonly history: HistoryInsert[] = [];
  /**
   * Items a notification brings, by sale and item id, the first of each: kept when the mirror
   * has them already, as a later copy is.
   */
  private readonly noticeItems: ItemsBySale = new Map();
  /** Items the gateway read, the last of each: they replace the mirror's. */
  private readonly gatewayItems: ItemsBySale = new Map();
  private readonly discrepancies: DiscrepancyInsert[] = [];
  private readonly seen = new Map<string, Set<string>>();
  /** Records whose history statuses are loaded. */
  private readonly loaded = new Set<string>();

  /** Loads the statuses already in the history of these records (once per record). */
  async loadSeen(tx: Tx, records: { sale: number[]; withdrawal: number[] }): Promise<void> {
    const sale = records.sale.filter((id) => !this.loaded.has(recordKey('sale', id)));
    const withdrawal = records.withdrawal.filter(
      (id) => !this.loaded.has(recordKey('withdrawal', id)),
    );
    this.markLoaded({ sale, withdrawal });
    for (const row of await seenStatuses(tx, { sale, withdrawal })) {
      this.seenOf(row.resourceType, row.resourceId).add(row.toStatus);
    }
  }

  markLoaded(records: { sale: readonly number[]; withdrawal: readonly number[] }): void {
    for (const id of records.sale) this.loaded.add(recordKey('sale', id));
    for (const id of records.withdrawal) this.loaded.add(recordKey('withdrawal', id));
  }

  hasSeen(resource: 'sale' | 'withdrawal', id: number, status: string): boolean {
    return this.seenOf(resource, id).has(status);
  }

  addHistory(entry: {
    readonly resource: 'sale' | 'withdrawal';
    readonly id: number;
    readonly from: string | null;
    readonly to: string;
    readonly context: ChangeContext;
    readonly entered: boolean;
    readonly observedAt: Date;
  }): void {
    this.seenOf(entry.resource, entry.id).add(entry.to);
    this.history.push({
      resourceType: entry.resource,
      resourceId: entry.id,
      fromStatus: entry.from,
      toStatus: entry.to,
      source: entry.context.source,
      inboxEventId: entry.context.inboxEventId,
      entered: entry.entered,
      observedAt: entry.observedAt,
    });
  }

  addItems(rows: readonly SaleItemInsert[], from: 'notice' | 'gateway'): void {
    const kept = from === 'notice' ? this.noticeItems : this.gatewayItems;
    for (const row of rows) {
      let sale = kept.get(row.saleId);
      if (sale === undefined) {
        sale = new Map();
        kept.set(row.saleId, sale);
      }
      if (from === 'gateway' || !sale.has(row.itemId)) sale.set(row.itemId, row);
    }
  }

  addDiscrepancies(
    resource: 'sale' | 'withdrawal',
    id: number,
    differences: readonly FieldDifference[],
    record: {
      readonly action: 'corrected' | 'recorded' | 'not_found';
      readonly source: DiscrepancySource;
      readonly inboxEventId: number | null;
      readonly runId: number | null;
    },
  ): void {
    for (const difference of differences) {
      this.discrepancies.push({
        resourceType: resource,
        resourceId: id,
        field: difference.field,
        mirrorValue: difference.mirrorValue,
        gatewayValue: difference.gatewayValue,
        ...record,
      });
    }
  }

  /**
   * Writes after the mirror rows (items and history refer to them), pipelined. The items of a
   * sale this transaction inserts (`insertsSale`) cannot be in the mirror yet: they go in a
   * plain INSERT (see insertNewSalesItems).
   */
  write(tx: Tx, insertsSale: (id: number) => boolean): Promise<void>[] {
    const newSales: SaleItemInsert[] = [];
    const others: SaleItemInsert[] = [];
    for (const [saleId, items] of this.noticeItems) {
      (insertsSale(saleId) ? newSales : others).push(...items.values());
    }
    return [
      insertNewSalesItems(tx, newSales),
      insertMissingItems(tx, others),
      upsertGatewayItems(
        tx,
        [...this.gatewayItems.values()].flatMap((sale) => [...sale.values()]),
      ),
      insertHistory(tx, this.history),
      insertDiscrepancies(tx, this.discrepancies),
    ];
  }

  private seenOf(resource: 'sale' | 'withdrawal', id: number): Set<string> {
    const key = recordKey(resource, id);
    let statuses = this.seen.get(key);
    if (!statuses) {
      statuses = new Set();
      this.seen.set(key, statuses);
    }
    return statuses;
  }
}
