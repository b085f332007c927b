import { sql, type SQL } from 'drizzle-orm';
import { bigintArrayLiteral } from '../db/literals.js';
import type { Tx } from '../db/client.js';
import { insertRows } from '../db/jsonRows.js';
import { reconciliationDiscrepancies, saleItems, statusHistory } from '../db/schema.js';
import type { FieldDifference } from './compareFields.js';
import { recordKey, type ChangeContext } from './inputs.js';
import { resourceTypeIs } from './mirrorRows.js';
import { executeQuery } from '../db/driverQuery.js';

type HistoryRow = typeof statusHistory.$inferInsert;
type ItemRow = typeof saleItems.$inferInsert;
type DiscrepancyRow = typeof reconciliationDiscrepancies.$inferInsert;
/** Item rows by sale id, then item id. */
type ItemsBySale = Map<number, Map<number, ItemRow>>;

export type DiscrepancySource =
  /** A reconciliation pass: the mirror against the gateway's read. */
  | 'reconcile'
  /** A postback and a webhook of one sale event disagree. */
  | 'cross_channel'
  /** The worker's GET for a notification corrected a field the mirror held. */
  | 'confirmation'
  /** A webhook's claim the gateway did not confirm (gateway_value holds the claim). */
  | 'unconfirmed_webhook';

/**
 * Everything a batch of mirror inputs writes beside the mirror rows: status_history,
 * sale_items and discrepancies, gathered while the inputs are decided one after another and
 * written with one statement each. Also knows which statuses each record's history holds,
 * so an observation already recorded is not recorded twice.
 */
export class MirrorWrites {
  private readonly history: HistoryRow[] = [];
  /**
   * Items a notification brings, by sale and item id, the first of each: kept when the mirror
   * has them already, as a later copy is.
   */
  private readonly noticeItems: ItemsBySale = new Map();
  /** Items the gateway read, the last of each: they replace the mirror's. */
  private readonly gatewayItems: ItemsBySale = new Map();
  private readonly discrepancies: DiscrepancyRow[] = [];
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
    await this.keepSeen(tx, {
      ...(sale.length > 0 ? { sale: bigintArrayLiteral(sale) } : {}),
      ...(withdrawal.length > 0 ? { withdrawal: bigintArrayLiteral(withdrawal) } : {}),
    });
  }

  markLoaded(records: { sale: readonly number[]; withdrawal: readonly number[] }): void {
    for (const id of records.sale) this.loaded.add(recordKey('sale', id));
    for (const id of records.withdrawal) this.loaded.add(recordKey('withdrawal', id));
  }

  /**
   * `ids` of each resource are bigint[] expressions without parameters: the statement is
   * planned at each run. status_history starts empty and grows by a row or more a notification;
   * a prepared plan made while it was small scanned it whole for every batch, comparing each
   * row with every id of the batch (a backfill or the first backlog grew quadratically). A
   * resource without ids is left out of the statement (planning is most of its cost in a small
   * batch: bench/PERFORMANCE.md, session 19); with neither, nothing is sent.
   */
  private async keepSeen(
    tx: Tx,
    ids: { readonly sale?: SQL; readonly withdrawal?: SQL },
  ): Promise<void> {
    const branches = (['sale', 'withdrawal'] as const).flatMap((resource) => {
      const named = ids[resource];
      return named ? [sql`(${resourceTypeIs(resource)} and resource_id = any(${named}))`] : [];
    });
    if (branches.length === 0) return;
    const rows = await executeQuery<{
      resource_type: string;
      resource_id: string;
      to_status: string;
    }>(
      tx,
      sql`select distinct resource_type, resource_id, to_status from status_history
           where ${sql.join(branches, sql` or `)}`,
    );
    for (const row of rows) {
      this.seenOf(row.resource_type, Number(row.resource_id)).add(row.to_status);
    }
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

  addItems(rows: readonly ItemRow[], from: 'notice' | 'gateway'): void {
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
   * sale this transaction inserts (`insertsSale`) cannot be in the mirror yet: they go in a plain
   * INSERT, which costs Postgres less than one that looks for conflicts (4–5 µs a sale of four
   * items; bench/PERFORMANCE.md, session 27). Should another transaction have created the sale
   * meanwhile, with its items, that INSERT fails on them, and the sale's own INSERT reports the
   * race the transaction is run again for (MirrorBatch.write).
   */
  async write(tx: Tx, insertsSale: (id: number) => boolean): Promise<void> {
    const newSales: ItemRow[] = [];
    const others: ItemRow[] = [];
    for (const [saleId, items] of this.noticeItems) {
      (insertsSale(saleId) ? newSales : others).push(...items.values());
    }
    await Promise.all([
      insertRows(tx, saleItems, newSales),
      insertRows(tx, saleItems, others, { skipConflicts: true }),
      upsertGatewayItems(
        tx,
        [...this.gatewayItems.values()].flatMap((sale) => [...sale.values()]),
      ),
      insertRows(tx, statusHistory, this.history),
      recordDiscrepancies(tx, this.discrepancies),
    ]);
  }

  private seenOf(resource: string, id: number): Set<string> {
    const key = recordKey(resource as 'sale' | 'withdrawal', id);
    let statuses = this.seen.get(key);
    if (!statuses) {
      statuses = new Set();
      this.seen.set(key, statuses);
    }
    return statuses;
  }
}

/** Discrepancies found outside applyToMirror's inputs (the two channels disagreeing). */
export async function recordDiscrepancies(tx: Tx, rows: readonly DiscrepancyRow[]): Promise<void> {
  await insertRows(tx, reconciliationDiscrepancies, rows);
}

async function upsertGatewayItems(tx: Tx, rows: readonly ItemRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insert(saleItems)
    .values([...rows])
    .onConflictDoUpdate({
      target: [saleItems.saleId, saleItems.itemId],
      set: {
        title: sql`excluded.title`,
        unitPriceCents: sql`excluded.unit_price_cents`,
        quantity: sql`excluded.quantity`,
        tangible: sql`excluded.tangible`,
      },
    });
}
