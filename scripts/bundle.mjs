// Bundles the CLI (dist/cli/main.js, built by tsc) and the packages it imports into one file,
// dist/cli/paymirror.mjs, which bin/paymirror runs. Node then reads and compiles one file
// instead of resolving, reading and wrapping about 900 modules: a worker's start went from
// about 1.2 s of CPU to 0.6 s (bench/PERFORMANCE.md), and every CLI command starts that much
// sooner. The bundle sits next to main.js, so the paths the code builds from import.meta.url
// (../../migrations, ../../package.json) still lead to the same files.
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = `${root}dist/cli/paymirror.mjs`;

// Several packages find their own files from __dirname: ioredis its package.json, bull-board
// its UI and templates, node-gyp-build its prebuilt binaries. In one bundle they would all see
// the bundle's directory, so each such module gets its own, relative to the bundle.
const ownDirname = {
  name: 'own-dirname',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(source)) return undefined;
      const file = JSON.stringify(relative(root, args.path));
      // On the module's first line, so the lines of its own source map still match.
      return {
        contents: `var __filename = __paymirrorFile(${file}), __dirname = __paymirrorDirname(__filename);${source}`,
        loader: 'js',
      };
    });
  },
};

const banner = [
  "import { createRequire as __paymirrorRequire } from 'node:module';",
  "import { dirname as __paymirrorDirname, join as __paymirrorJoin } from 'node:path';",
  "import { fileURLToPath as __paymirrorPath } from 'node:url';",
  // CommonJS packages require Node's own modules; an ES module has no require of its own.
  'const require = __paymirrorRequire(import.meta.url);',
  "const __paymirrorRoot = __paymirrorPath(new URL('../../', import.meta.url));",
  'const __paymirrorFile = (path) => __paymirrorJoin(__paymirrorRoot, path);',
].join('\n');

await build({
  entryPoints: [`${root}dist/cli/main.js`],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: banner },
  plugins: [ownDirname],
  sourcemap: true,
  sourcesContent: false,
  minifyWhitespace: true,
  logLevel: 'warning',
});

/**
 * Leaves in the source map only what maps to paymirror's own sources. With --enable-source-maps
 * Node reads the whole map when it loads the bundle, and decodes and keeps it at the first stack
 * trace it formats: with the 1,088 sources of the bundle that cost 11 MB of RSS at start and
 * about 95 MB after the first error (a failing CLI command peaked at 177 MB against 81 without
 * source maps). Kept to the 180 files of src/: 1 MB at start, 16 MB after an error. Frames in
 * the packages keep their function names and point at the bundle's line and column.
 */
async function keepOwnMappings(path) {
  const map = JSON.parse(await readFile(path, 'utf8'));
  const sources = new Renumbering();
  const names = new Renumbering();
  const lines = decode(map.mappings).map((segments) =>
    segments.flatMap((segment) => {
      if (segment.length === 1 || map.sources[segment[1]].includes('node_modules/')) return [];
      const [column, source, line, sourceColumn, name] = segment;
      const kept = [column, sources.of(map.sources, source), line, sourceColumn];
      return [name === undefined ? kept : [...kept, names.of(map.names, name)]];
    }),
  );
  const kept = { sources: sources.values, names: names.values, mappings: encode(lines) };
  await writeFile(path, JSON.stringify({ ...map, ...kept }));
}

/** The entries of a list that are still used, under their new indexes. */
class Renumbering {
  values = [];
  #indexes = new Map();

  of(list, index) {
    let kept = this.#indexes.get(index);
    if (kept === undefined) {
      kept = this.values.push(list[index]) - 1;
      this.#indexes.set(index, kept);
    }
    return kept;
  }
}

await keepOwnMappings(`${outfile}.map`);
