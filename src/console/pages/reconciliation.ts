import { int, status, when } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { CONSOLE_PATH, facts } from '../layout.js';
import type { PageHandler } from '../pageContext.js';
import { discrepancyParams, queryOf, recordId } from '../params.js';
import { discrepancyCountsByRun, listDiscrepancies } from '../../mirror/sql/story.js';
import {
  listReconciliationRuns,
  reconciliationRunById,
  type RunRow,
} from '../../reconciler/sql.js';
import type { Sql } from '../../db/client.js';
import { consoleTable, type ConsoleColumn } from '../table.js';
import { discrepancyColumns, linkFrom, runHref } from './columns.js';

const RUNS_SHOWN = 50;
const PAGE_SIZE = 100;

const runColumns: readonly ConsoleColumn[] = [
  { key: 'id', label: 'run', kind: 'integer', href: linkFrom('id', runHref) },
  { key: 'trigger', label: 'trigger', kind: 'text' },
  { key: 'status', label: 'status', kind: 'text', badge: true },
  { key: 'started_at', label: 'started', kind: 'timestamp' },
  { key: 'finished_at', label: 'finished', kind: 'timestamp' },
  { key: 'checked', label: 'checked', kind: 'integer' },
  { key: 'unchanged', label: 'unchanged', kind: 'integer' },
  { key: 'inserted', label: 'inserted', kind: 'integer' },
  { key: 'corrected', label: 'corrected', kind: 'integer' },
  { key: 'not_found', label: 'not found', kind: 'integer' },
  { key: 'errors', label: 'errors', kind: 'integer' },
  { key: 'discrepancy_count', label: 'discrepancies', kind: 'integer' },
];

/** Reconciliation runs, newest first, and every discrepancy found (in a run or not), filtered. */
export const reconciliationPage: PageHandler = async (context) => {
  const parsed = discrepancyParams.safeParse(queryOf(context.url));
  if (!parsed.success) {
    return {
      kind: 'bad_request',
      problem: parsed.error.issues.map((issue) => issue.message).join('; '),
      back: `${CONSOLE_PATH}/reconciliation`,
    };
  }
  const filter = parsed.data;
  const sql = context.sources.sql;
  const [runs, discrepancies] = await Promise.all([
    listReconciliationRuns(sql, { beforeId: null, limit: RUNS_SHOWN }).then((rows) =>
      withDiscrepancyCounts(sql, rows),
    ),
    listDiscrepancies(sql, {
      runId: null,
      source: filter.source,
      action: filter.action,
      beforeId: filter.before,
      limit: PAGE_SIZE,
    }),
  ]);
  const runTable = consoleTable(
    {
      name: 'runs',
      caption: `The last ${RUNS_SHOWN} runs`,
      columns: runColumns,
      empty: 'No reconciliation has run yet.',
      rowClass: (row) => (row.status === 'failed' || row.status === 'partial' ? 'attention' : null),
    },
    runs,
  );
  const found = consoleTable(
    {
      name: 'discrepancies',
      caption:
        filter.before === null
          ? 'Discrepancies, newest first'
          : `Discrepancies before #${filter.before}`,
      columns: [{ key: 'id', label: 'id', kind: 'integer' }, ...discrepancyColumns],
      empty: 'No discrepancy matches.',
    },
    discrepancies,
  );
  const last = discrepancies.at(-1);
  return {
    kind: 'page',
    title: 'Reconciliation',
    section: 'reconciliation',
    body: html`<h1>Reconciliation</h1>
      <p class="lede">
        Each run compares mirror rows with the gateway's records, writes the gateway's values and
        records every difference it found. Differences found outside a run (a webhook's
        confirmation, two channels disagreeing) are listed with no run.
      </p>
      ${context.table(runTable)} ${discrepancyFilter(filter.source, filter.action)}
      ${context.table(found)}
      ${
        last && discrepancies.length === PAGE_SIZE
          ? html`<p>
              <a href="${context.withQuery({ before: String(last.id) })}">Older discrepancies</a>
            </p>`
          : null
      }`,
  };
};

function discrepancyFilter(source: string | null, action: string | null): SafeHtml {
  const option = (value: string, current: string | null) =>
    html`<option value="${value}" ${value === current ? html`selected` : null}>${value}</option>`;
  return html`<form class="filters" method="get" action="${CONSOLE_PATH}/reconciliation">
    <div class="field">
      <label for="filter-source">Found by</label>
      <select id="filter-source" name="source">
        <option value="">any</option>
        ${['reconcile', 'confirmation', 'cross_channel', 'unconfirmed_webhook'].map((value) =>
          option(value, source),
        )}
      </select>
    </div>
    <div class="field">
      <label for="filter-action">Action</label>
      <select id="filter-action" name="action">
        <option value="">any</option>
        ${['corrected', 'recorded', 'not_found'].map((value) => option(value, action))}
      </select>
    </div>
    <div class="field actions">
      <button type="submit">Filter</button>
      <a href="${CONSOLE_PATH}/reconciliation">Clear</a>
    </div>
  </form>`;
}

/** One run: its counts and what it corrected or recorded. */
export const runPage: PageHandler = async (context) => {
  const id = recordId.safeParse(context.params.id);
  if (!id.success) return { kind: 'not_found', what: 'run' };
  const sql = context.sources.sql;
  const stored = await reconciliationRunById(sql, id.data);
  const [run] = stored ? await withDiscrepancyCounts(sql, [stored]) : [];
  if (!run) return { kind: 'not_found', what: `reconciliation run ${id.data}` };
  const discrepancies = await listDiscrepancies(sql, {
    runId: id.data,
    source: null,
    action: null,
    beforeId: null,
    limit: 10_000,
  });
  const found = consoleTable(
    {
      name: 'discrepancies',
      caption: 'What it found',
      columns: discrepancyColumns.filter((column) => column.key !== 'run_id'),
      empty: 'It found the mirror equal to the gateway everywhere it looked.',
    },
    discrepancies,
  );
  return {
    kind: 'page',
    title: `Reconciliation run ${id.data}`,
    section: 'reconciliation',
    body: html`<h1>Reconciliation run ${id.data} ${status(run.status)}</h1>
      ${facts([
        ['Trigger', run.trigger],
        ['Started', when(run.started_at)],
        ['Finished', when(run.finished_at)],
        ['Checked', String(run.checked)],
        ['Unchanged', String(run.unchanged)],
        ['Inserted (new to the mirror)', String(run.inserted)],
        ['Corrected', String(run.corrected)],
        ['Not found at the gateway', String(run.not_found)],
        ['Errors', String(run.errors)],
        ['Discrepancies', String(int(run.discrepancy_count, 'discrepancy_count'))],
        ['Error', run.error ?? '—'],
      ])}
      ${context.table(found)}`,
  };
};

/** Runs with how many discrepancies each recorded (the mirror keeps the discrepancies). */
async function withDiscrepancyCounts(
  sql: Sql,
  runs: readonly RunRow[],
): Promise<(RunRow & { discrepancy_count: number })[]> {
  const counts = await discrepancyCountsByRun(
    sql,
    runs.map((run) => run.id),
  );
  return runs.map((run) => ({ ...run, discrepancy_count: counts.get(run.id) ?? 0 }));
}
