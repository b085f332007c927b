// Bundles the CLI (dist/cli/main.js, built by tsc) and the packages it imports into one file,
// dist/cli/paymirror.mjs, which bin/paymirror runs. Node then reads and compiles one file
// instead of resolving, reading and wrapping about 900 modules: a worker's start went from
// about 1.2 s of CPU to 0.6 s (bench/PERFORMANCE.md), and every CLI command starts that much
// sooner. The bundle sits next to main.js, so the paths the code builds from import.meta.url
// (../../migrations, ../../package.json) still lead to the same files.
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

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
  outfile: `${root}dist/cli/paymirror.mjs`,
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
