import type { Tx } from '../../db/client.js';
import { insertRows } from '../../db/jsonRows.js';
import type { SaleItemInsert } from '../../db/rows.js';
import { saleItems } from '../../db/schema.js';

/** The statements on `sale_items`. */

/**
 * Items of sales this transaction inserts: a plain INSERT, which costs Postgres less than one
 * that looks for conflicts. Should another transaction have created the sale meanwhile, with
 * its items, it fails on them, and the sale's own insert reports the race the transaction is
 * run again for.
 */
export async function insertNewSalesItems(tx: Tx, rows: readonly SaleItemInsert[]): Promise<void> {
  await insertRows(tx, saleItems, rows);
}

/** Items a notification brings: an item the mirror has already is kept as it is. */
export async function insertMissingItems(tx: Tx, rows: readonly SaleItemInsert[]): Promise<void> {
  await insertRows(tx, saleItems, rows, { skipConflicts: true });
}

/** Items the gateway read: they replace the mirror's. */
export async function upsertGatewayItems(tx: Tx, rows: readonly SaleItemInsert[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    insert into sale_items (sale_id, item_id, title, unit_price_cents, quantity, tangible)
    select * from json_to_recordset(${JSON.stringify(rows)}::json)
      as r("saleId" bigint, "itemId" bigint, title text, "unitPriceCents" bigint,
           quantity integer, tangible boolean)
    on conflict (sale_id, item_id) do update
       set title = excluded.title, unit_price_cents = excluded.unit_price_cents,
           quantity = excluded.quantity, tangible = excluded.tangible`.execute();
}
