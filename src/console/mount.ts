import type { Express, NextFunction, Request, Response } from 'express';
import { CONSOLE_PATH } from './layout.js';
import type { ConsoleOptions } from './router.js';

type Handler = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Mounts the console at /console, loading its pages on the first request: a process nobody
 * browses (an ingress or a worker in a fleet) does not carry them, about 20 MB of its RSS.
 */
export function mountConsole(app: Express, options: ConsoleOptions): void {
  let router: Promise<Handler> | null = null;
  app.use(CONSOLE_PATH, (req, res, next) => {
    router ??= import('./router.js')
      .then(({ consoleRouter }) => consoleRouter(options))
      .catch((error: unknown) => {
        router = null;
        throw error;
      });
    router.then((handle) => handle(req, res, next), next);
  });
}
