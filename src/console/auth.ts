import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { AdminGate, AdminVerdict } from '../ingress/adminGate.js';
import { html, type SafeHtml } from './html.js';
import { CONSOLE_PATH, page } from './layout.js';
import { sendPage } from './respond.js';
import {
  cameOverHttps,
  expiredSessionCookie,
  issueSession,
  sessionCookie,
  sessionCookieOf,
  sessionIsValid,
} from './session.js';

export interface ConsoleAuthOptions {
  readonly token: string;
  readonly gate: AdminGate;
  readonly trustedProxies: number;
  readonly nowSeconds: () => number;
}

/**
 * Who may read the console: a request with the admin token in its Authorization header (Bearer,
 * or Basic with the token as the password, exactly as bull-board takes it, through the same
 * gate), or a browser signed in through the form. Anyone else gets 401 and the sign-in form
 * (429 once their address has guessed too many wrong tokens).
 */
export function requireSignIn(options: ConsoleAuthOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (sessionIsValid(options.token, sessionCookieOf(req.headers), options.nowSeconds())) {
      next();
      return;
    }
    const verdict = options.gate.check(req, options.gate.presentedToken(req.headers));
    if (verdict.kind === 'admitted') {
      next();
      return;
    }
    refuse(res, verdict, returnPathOf(req.originalUrl), null);
  };
}

const loginForm = z.object({
  token: z.string().min(1).max(1024),
  next: z.string().max(2048).optional(),
});

/** GET and POST /console/login, POST /console/logout: the only writes are the cookie's. */
export function signInRoutes(router: Router, options: ConsoleAuthOptions): void {
  router.get('/login', (req, res) => {
    const next = returnPathOf(queryValue(req, 'next') ?? CONSOLE_PATH);
    sendPage(res, 200, loginPage(next, null));
  });
  router.post(
    '/login',
    sameOrigin,
    express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 4 }),
    (req: Request, res: Response) => {
      const form = loginForm.safeParse(req.body);
      const next = returnPathOf(form.success ? (form.data.next ?? CONSOLE_PATH) : CONSOLE_PATH);
      const verdict = options.gate.check(req, form.success ? form.data.token : null);
      if (verdict.kind !== 'admitted') {
        refuse(res, verdict, next, form.success ? 'That is not the admin token.' : null);
        return;
      }
      const secure = cameOverHttps(req, options.trustedProxies);
      res.setHeader(
        'set-cookie',
        sessionCookie(issueSession(options.token, options.nowSeconds()), secure),
      );
      res.redirect(303, next);
    },
  );
  router.post('/logout', sameOrigin, (req, res) => {
    res.setHeader('set-cookie', expiredSessionCookie(cameOverHttps(req, options.trustedProxies)));
    res.redirect(303, `${CONSOLE_PATH}/login`);
  });
}

function refuse(
  res: Response,
  verdict: Exclude<AdminVerdict, { kind: 'admitted' }>,
  next: string,
  problem: string | null,
): void {
  if (verdict.kind === 'blocked') {
    res.setHeader('retry-after', String(verdict.retryAfterSeconds));
    sendPage(
      res,
      429,
      loginPage(next, 'Too many wrong tokens from this address: try again later.'),
    );
    return;
  }
  // Bearer, not Basic: a Basic challenge would make the browser open its own password box
  // over the sign-in form. A client that sends Basic credentials unasked is accepted all the same.
  res.setHeader('www-authenticate', 'Bearer realm="paymirror console"');
  sendPage(res, 401, loginPage(next, problem));
}

function loginPage(next: string, problem: string | null): SafeHtml {
  return page({
    title: 'Sign in',
    section: null,
    signedIn: false,
    body: html`<section class="signin">
      <h1>Sign in</h1>
      <p>
        The console reads the mirror; it changes nothing. Sign in with the admin token
        (<code>ADMIN_TOKEN</code>).
      </p>
      ${problem ? html`<p class="problem" role="alert">${problem}</p>` : null}
      <form method="post" action="${CONSOLE_PATH}/login">
        <input type="hidden" name="next" value="${next}" />
        <label for="token">Admin token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="current-password"
          required
          autofocus
        />
        <button type="submit">Sign in</button>
      </form>
    </section>`,
  });
}

/** Only a path inside the console, so the form can never send anyone elsewhere. */
function returnPathOf(candidate: string): string {
  return /^\/console(?:\/[A-Za-z0-9/_.-]*)?(?:\?[A-Za-z0-9=&%_.+:-]*)?$/.test(candidate) &&
    !candidate.includes('//') &&
    !candidate.startsWith(`${CONSOLE_PATH}/login`) &&
    !candidate.startsWith(`${CONSOLE_PATH}/logout`)
    ? candidate
    : CONSOLE_PATH;
}

/** A POST from another site's page is refused (the cookie is SameSite=Strict besides). */
function sameOrigin(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    // "null" (a sandboxed frame, a file) parses to no host: refused too.
    const host = URL.canParse(origin) ? new URL(origin).host : null;
    if (host !== req.headers.host) {
      sendPage(
        res,
        403,
        page({
          title: 'Refused',
          section: null,
          signedIn: false,
          body: html`<p>Refused: this form was sent from another site.</p>`,
        }),
      );
      return;
    }
  }
  next();
}

function queryValue(req: Request, name: string): string | null {
  return new URL(req.originalUrl, 'http://console.invalid').searchParams.get(name);
}
