// What bin/paymirror runs: the CLI bundle (dist/cli/paymirror.cjs, scripts/bundle.mjs) compiled
// with a V8 code cache, so that a process does not parse and compile ~3.9 MB of JavaScript at
// each start. The cache lives in dist/cli/code-cache/, one file per command, written by the first
// run of each (docs/architecture.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeCacheFile, compileWithCodeCache } from './codeCache.js';
import { mapStackFramesOf } from './mappedStacks.js';

type CommonJsBody = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

const here = dirname(fileURLToPath(import.meta.url));
const bundle = join(here, 'paymirror.cjs');
mapStackFramesOf(bundle);
// On a line of its own, so that the bundle's lines keep their numbers (lineOffset -1).
const source = `(function (exports, require, module, __filename, __dirname) {\n${readFileSync(bundle, 'utf8')}\n})`;
const cacheFile = codeCacheFile(join(here, 'code-cache'), bundle, process.argv.slice(2));
const body = compileWithCodeCache(source, bundle, cacheFile).runInThisContext() as CommonJsBody;
const module = { exports: {} };
body.call(module.exports, module.exports, createRequire(bundle), module, bundle, here);
