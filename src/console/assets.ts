import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, Response, Router } from 'express';

/**
 * The console's files: its stylesheet and script (assets/console/, found from this file in
 * src/ and dist/ alike, and from the bundle beside dist/cli/), and Chart.js as its package
 * publishes it, from node_modules. Nothing comes from a CDN.
 */
const OWN_ASSETS = fileURLToPath(new URL('../../assets/console/', import.meta.url));

function chartFile(): string {
  // chart.js exports only its modules; its UMD build sits beside them in dist/.
  const main = createRequire(import.meta.url).resolve('chart.js');
  return join(dirname(main), 'chart.umd.min.js');
}

const FILES: Readonly<Record<string, { path: () => string; type: string }>> = {
  'console.css': { path: () => join(OWN_ASSETS, 'console.css'), type: 'text/css; charset=utf-8' },
  'console.js': {
    path: () => join(OWN_ASSETS, 'console.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'favicon.svg': { path: () => join(OWN_ASSETS, 'favicon.svg'), type: 'image/svg+xml' },
  'chart.umd.min.js': { path: chartFile, type: 'text/javascript; charset=utf-8' },
};

export function assetRoutes(router: Router): void {
  const loaded = new Map<string, Promise<Buffer>>();
  router.get('/assets/:name', (req: Request, res: Response, next) => {
    const name = String(req.params.name);
    const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (!file) {
      next();
      return;
    }
    let content = loaded.get(name);
    if (!content) {
      content = readFile(file.path());
      content.catch(() => loaded.delete(name));
      loaded.set(name, content);
    }
    content.then((bytes) => {
      res.setHeader('cache-control', 'private, max-age=300');
      res.status(200).type(file.type).send(bytes);
    }, next);
  });
}
