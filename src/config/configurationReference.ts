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
    "| `PAYMIRROR_MAX_OLD_SPACE_MB` | `512` | V8's old-space limit `bin/paymirror` starts node with (`--max-old-space-size`): lower peaks, and a leak ends in a heap OOM ([scaling.md](scaling.md#runtime-flags)) |",
    "| `PAYMIRROR_MAX_SEMI_SPACE_MB` | `8` | V8's semi-space size (`--max-semi-space-size`): Node 20 and 22 would take 16 MB at a 512 MB heap, Node 24 64; 8 keeps an ingress about 20 MB lower at the peak ([scaling.md](scaling.md#runtime-flags)) |",
    '| `PAYMIRROR_HEAP_GROWING_PERCENT` | `70` | How far V8 lets the old generation grow between full collections (`--heap-growing-percent`, which NODE_OPTIONS refuses): fewer of them under load, about 10 % less CPU a request ([scaling.md](scaling.md#runtime-flags)) |',
    "| `PAYMIRROR_V8_POOL_SIZE` | a core less than `nproc` counts, 1 to 4 | V8's background threads (`--v8-pool-size`; Node's own is 4 on any machine). In a container, its CPU limit less one ([scaling.md](scaling.md#runtime-flags)) |",
    '| `PAYMIRROR_NODE_FLAGS` | – | More node flags for `bin/paymirror`, split on spaces, for those NODE_OPTIONS refuses: `--cpu-prof --cpu-prof-dir=/tmp/profiles` writes a CPU profile of the process as it runs, the defaults above kept |',
    "| `MALLOC_ARENA_MAX` | `2` | glibc malloc arenas `bin/paymirror` starts node with (glibc's own is up to 8 a core): peaks 5–10 MB lower ([scaling.md](scaling.md#runtime-flags)) |",
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
