import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';

// ops/ names metrics in PromQL; this keeps those names true to the registry paymirror builds.
const read = (path: string) => readFileSync(new URL(`../../ops/${path}`, import.meta.url), 'utf8');

interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown; runbook?: unknown };
}
interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  targets?: { expr?: unknown }[];
  panels?: Panel[];
}

async function knownMetricNames(): Promise<Set<string>> {
  const metrics = await createMetrics().registry.getMetricsAsJSON();
  const names = new Set<string>();
  for (const metric of metrics) {
    names.add(metric.name);
    // prom-client's types declare a numeric enum; the value is the string 'histogram'.
    if (String(metric.type) === 'histogram') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
  }
  return names;
}

// PromQL words that are not metric names (functions are recognised by the "(" after them).
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression selects (Grafana variables allowed). */
function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // strings
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // grouping
    .replace(/\$\{?\w+\}?/g, ' '); // Grafana variables
  const names: string[] = [];
  for (const match of stripped.matchAll(/(?<![\w.:])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, word, call] = match;
    if (!word || call || KEYWORDS.has(word.toLowerCase())) continue;
    names.push(word);
  }
  return names;
}

function balanced(expr: string): boolean {
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const stack: string[] = [];
  for (const char of expr.replace(/"(?:[^"\\]|\\.)*"/g, '')) {
    if ('([{'.includes(char)) stack.push(char);
    else if (char in pairs && stack.pop() !== pairs[char]) return false;
  }
  return stack.length === 0;
}

function alertRules(): Rule[] {
  const document = parse(read('prometheus/alerts.yml')) as { groups?: { rules?: Rule[] }[] };
  expect(Array.isArray(document.groups)).toBe(true);
  return (document.groups ?? []).flatMap((group) => group.rules ?? []);
}

function dashboard(): { panels?: Panel[]; schemaVersion?: unknown; __inputs?: unknown[] } {
  return JSON.parse(read('grafana/paymirror-dashboard.json')) as ReturnType<typeof dashboard>;
}

function allPanels(panels: Panel[] = []): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels)]);
}

describe('metricNamesIn', () => {
  it('finds selectors, skips functions, labels, ranges, grouping and variables', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (le) (rate(paymirror_x_bucket{instance=~"$instance", a="b{c}"}[$__rate_interval]))) > 0 and on () count(up offset 5m) or vector(0)',
      ),
    ).toEqual(['paymirror_x_bucket', 'up']);
  });
});

describe('ops/prometheus/alerts.yml', () => {
  it('every alert has a unique name, expr, for, severity, summary, description and a runbook section in ops/README.md', () => {
    const rules = alertRules();
    const runbooks = new Set(
      [...read('README.md').matchAll(/^#{2,4} (.+)$/gm)].map(
        (heading) => `ops/README.md#${String(heading[1]).toLowerCase().replace(/\s+/g, '-')}`,
      ),
    );
    expect(rules.length).toBeGreaterThan(10);
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules) {
      const name = String(rule.alert);
      expect(name, JSON.stringify(rule)).toMatch(/^Paymirror[A-Za-z]+$/);
      expect(typeof rule.expr === 'string' && rule.expr.trim().length > 0, name).toBe(true);
      expect(balanced(String(rule.expr)), `${name}: unbalanced brackets`).toBe(true);
      expect(String(rule.for), name).toMatch(/^\d+[smhd]$/);
      expect(['critical', 'warning', 'info'], name).toContain(rule.labels?.severity);
      expect(String(rule.annotations?.summary ?? '').trim(), name).not.toBe('');
      expect(String(rule.annotations?.description ?? '').trim(), name).not.toBe('');
      expect(runbooks, `${name}: runbook`).toContain(rule.annotations?.runbook);
    }
  });

  it('covers silence, backlog age, failed jobs, discrepancies, failing passes, forged, a leaked webhook token, unconfirmed cycle replays, rejections and gateway errors', () => {
    const exprs = alertRules()
      .map((rule) => String(rule.expr))
      .join('\n');
    for (const needed of [
      'paymirror_seconds_since_last_accepted',
      'paymirror_inbox_oldest_pending_age_seconds',
      'paymirror_inbox_rows{state="failed"}',
      'paymirror_reconcile_discrepancies_total',
      'paymirror_reconcile_runs_total{status!="succeeded"}',
      'paymirror_worker_outcomes_total{outcome="forged"}',
      'paymirror_deliveries_total{outcome="rejected"}',
      'paymirror_gateway_calls_total{status=~"5..|network|timeout"}',
      'paymirror_unknown_webhooks_not_ours_in_a_row',
      'paymirror_cycle_replays_unconfirmed_total',
    ]) {
      expect(exprs).toContain(needed);
    }
  });

  it('names only metrics that createMetrics() registers', async () => {
    const known = await knownMetricNames();
    for (const rule of alertRules()) {
      const names = metricNamesIn(String(rule.expr));
      expect(names.length, String(rule.alert)).toBeGreaterThan(0);
      for (const name of names) expect(known, `${String(rule.alert)}: ${name}`).toContain(name);
    }
  });
});

describe('ops/grafana/paymirror-dashboard.json', () => {
  it('is an importable dashboard with a DS_PROMETHEUS input and unique panel ids', () => {
    const board = dashboard();
    expect(board.schemaVersion).toBe(39);
    expect(board.__inputs).toEqual([
      expect.objectContaining({
        name: 'DS_PROMETHEUS',
        type: 'datasource',
        pluginId: 'prometheus',
      }),
    ]);
    const panels = allPanels(board.panels);
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      expect(panel.targets?.length, String(panel.title)).toBeGreaterThan(0);
    }
    expect(JSON.stringify(board)).not.toMatch(
      /"uid":\s*"(?!\$\{DS_PROMETHEUS\}|paymirror|-- Grafana --)/,
    );
  });

  it('queries only metrics that createMetrics() registers', async () => {
    const known = await knownMetricNames();
    const exprs = allPanels(dashboard().panels).flatMap((panel) =>
      (panel.targets ?? []).map((target) => String(target.expr)),
    );
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs) {
      expect(balanced(expr), expr).toBe(true);
      const names = metricNamesIn(expr);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names) expect(known, `${expr}: ${name}`).toContain(name);
    }
  });

  it('has the panels operators need', () => {
    const exprs = allPanels(dashboard().panels)
      .flatMap((panel) => (panel.targets ?? []).map((target) => String(target.expr)))
      .join('\n');
    for (const metric of [
      'paymirror_deliveries_total',
      'paymirror_accept_to_applied_seconds_bucket',
      'paymirror_queue_jobs',
      'paymirror_inbox_oldest_pending_age_seconds',
      'paymirror_seconds_since_last_accepted',
      'paymirror_worker_outcomes_total',
      'paymirror_gateway_calls_total',
      'paymirror_reconcile_rows_total',
      'paymirror_reconcile_discrepancies_total',
      'paymirror_process_resident_memory_bytes',
    ]) {
      expect(exprs).toContain(metric);
    }
  });
});
