import { envSchema, type Env } from './config.js';
import { SETTING_DOCS } from './settingDocs.js';

/** docs/configuration.md, from the schema and SETTING_DOCS: the one reference, never hand-edited. */
export function renderConfigurationReference(): string {
  const defaults = envSchema.parse({}) as Record<string, unknown>;
  const groups = new Map<string, (keyof Env)[]>();
  for (const name of Object.keys(SETTING_DOCS) as (keyof Env)[]) {
    const { group } = SETTING_DOCS[name];
    groups.set(group, [...(groups.get(group) ?? []), name]);
  }
  const sections = [...groups].map(([group, names]) =>
    [
      `## ${group}`,
      '',
      '| Variable | Default | Meaning |',
      '| --- | --- | --- |',
      ...names.map(
        (name) =>
          `| \`${name}\` | ${shownDefault(name, defaults[name])} | ${SETTING_DOCS[name].meaning} |`,
      ),
      '',
    ].join('\n'),
  );
  return [
    '<!-- Generated from src/config/config.ts and src/config/settingDocs.ts by `npm run docs:config`. Do not edit: a test fails when this file and the schema drift. -->',
    '',
    '# Configuration',
    '',
    'Every setting is an environment variable, parsed once at start by one schema: a bad value',
    'stops the process with one message naming every bad variable. A `.env` file in the working',
    'directory is read too (`KEY=value` lines); a variable set in the real environment wins over',
    'the file, and the file over the defaults below. An empty value counts as unset.',
    '',
    ...sections,
    '## Outside the process',
    '',
    '| Variable | Default | Meaning |',
    '| --- | --- | --- |',
    "| `DEMO_DATABASE_URL` | `postgres://postgres@127.0.0.1:5432/paymirror_demo` | The demo's own database (emptied at each run) |",
    "| `DEMO_LOG_LEVEL` | `silent` | The demo's paymirror log level (e.g. `warn`), on stderr |",
    "| `DEMO_ADMIN_TOKEN` | one made up, kept in `data/demo-admin-token` | The token the demo's console takes (16+ characters) |",
    '| `PAYMIRROR_MAX_OLD_SPACE_MB` | `512` | V8 heap limit `bin/paymirror` starts node with. From 2048, V8 lets the heap grow 4× between full collections instead of about 1.4×: a worker draining a backlog spends 10–15 % less of its own CPU a job and peaks near 190 MB instead of 140 (docs/performance.md) |',
    '| `PAYMIRROR_MAX_SEMI_SPACE_MB` | `16` | V8 semi-space size `bin/paymirror` starts node with (the young generation is three of them). Node 20 and 22 use 16 at a 512 MB heap; Node 24 would use 64, and the ingress peaked about 110 MB higher under load (docs/performance.md) |',
    "| `PAYMIRROR_HEAP_GROWING_PERCENT` | `70` | How much V8 lets the old generation grow past what a full collection left before the next one (`bin/paymirror`'s `--heap-growing-percent`; V8's own choice at a 512 MB heap is about 40). An ingress under load ran a third as many full collections, with a lower p99 and about 10 % less CPU a request, for 7–12 MB more at its peak on Node 20, 12–15 on Node 24 (docs/performance.md) |",
    "| `PAYMIRROR_V8_POOL_SIZE` | a core less than the machine's, 1 to 4 | V8's background threads (GC helpers, optimizing compiles) `bin/paymirror` starts node with (`--v8-pool-size`; Node's own is 4 on any machine). On 2 cores shared with Postgres and Redis, one drained a backlog 4–7 % faster than four (docs/performance.md) |",
    '| `PAYMIRROR_NODE_FLAGS` | – | More node flags for `bin/paymirror`, split on spaces, for those NODE_OPTIONS refuses: `--cpu-prof --cpu-prof-dir=/tmp/profiles` writes a CPU profile of the process as it runs, heap flags included |',
    "| `MALLOC_ARENA_MAX` | `2` | glibc malloc arenas `bin/paymirror` starts node with (glibc's own default is 8 a core). Two kept the peaks of a worker and an ingress at 500 notifications/s 5–10 MB lower, at no CPU cost the bench could tell (docs/performance.md) |",
    '| `PAYMIRROR_BIND` | `127.0.0.1` | docker-compose: the address the port is published on (`0.0.0.0` to expose it) |',
    '',
  ].join('\n');
}

function shownDefault(name: keyof Env, value: unknown): string {
  const override = SETTING_DOCS[name].shownDefault;
  if (override !== undefined) return override.startsWith('—') ? override : `\`${override}\``;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '—';
  return `\`${String(value)}\``;
}
