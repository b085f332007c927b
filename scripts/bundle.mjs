// Bundles the CLI (dist/cli/main.js, built by tsc) and the packages it imports into one file,
// dist/cli/paymirror.cjs, and its launcher (dist/launch/launch.js) into dist/cli/launch.mjs,
// which bin/paymirror runs. Node then reads and compiles one file instead of resolving, reading
// and wrapping about 900 modules: a worker's start went from about 1.2 s of CPU to 0.6 s
// (bench/PERFORMANCE.md), and every CLI command starts that much sooner. The bundle is CommonJS
// so that the launcher can compile it with a V8 code cache (vm.Script takes one; Node 20 has no
// compile cache for modules). It sits next to main.js, so the paths the code builds from
// import.meta.url (../../migrations, ../../package.json) still lead to the same files.
import { readFile, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';
import { keepOwnMappings } from './ownSourceMap.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = `${root}dist/cli/paymirror.cjs`;

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

// The bundle runs as the body of a CommonJS module (src/launch/launch.ts gives it require,
// __filename and __dirname). Strict, as the ES modules it was built from were.
const banner = [
  "'use strict';",
  "const { dirname: __paymirrorDirname, join: __paymirrorJoin } = require('node:path');",
  "const __paymirrorModuleUrl = require('node:url').pathToFileURL(__filename).href;",
  "const __paymirrorRoot = __paymirrorJoin(__dirname, '../../');",
  'const __paymirrorFile = (path) => __paymirrorJoin(__paymirrorRoot, path);',
].join('\n');

// Both builds: one file with its packages, for the oldest Node that engines allows.
const oneFile = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };

await build({
  ...oneFile,
  entryPoints: [`${root}dist/cli/main.js`],
  outfile,
  format: 'cjs',
  banner: { js: banner },
  define: { 'import.meta.url': '__paymirrorModuleUrl' },
  plugins: [ownDirname],
  sourcemap: true,
  sourcesContent: false,
  minifyWhitespace: true,
});

await keepOwnMappings(`${outfile}.map`);

// The launcher, alone: it compiles the bundle above with a V8 code cache.
await build({
  ...oneFile,
  entryPoints: [`${root}dist/launch/launch.js`],
  outfile: `${root}dist/cli/launch.mjs`,
  format: 'esm',
});
// The code caches of the last build's bundle (src/launch/codeCache.ts names them by its size
// and mtime, so they would not be used; they would only take room).
await rm(`${root}dist/cli/code-cache`, { recursive: true, force: true });
