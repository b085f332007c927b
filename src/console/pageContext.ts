import type { Sql } from '../db/client.js';
import type { HtmlValue, SafeHtml } from './html.js';
import type { Section } from './layout.js';
import type { ConsoleTable } from './table.js';

/** Jobs in one BullMQ queue by state, and how long its oldest waiting job has waited. */
export interface QueueDepth {
  readonly name: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly oldestWaitingSeconds: number;
}

/** The gateway budget (GATEWAY_MAX_RPS), shared by every process of the account. */
export interface GatewayBudget {
  readonly maxPerSecond: number;
  /** Tokens in the shared bucket now (at most maxPerSecond): what is left of this second. */
  readonly available: number;
  /** Requests this process sent under the budget since it started. */
  readonly takenByThisProcess: number;
}

/** What the console reads, handed in by the process that serves it. */
export interface ConsoleSources {
  readonly sql: Sql;
  /** The lanes' queues (and the transition feed's, when this process has it). */
  readonly queueDepths: () => Promise<readonly QueueDepth[]>;
  /** Null without gateway keys. */
  readonly gatewayBudget: (() => Promise<GatewayBudget>) | null;
  readonly now: () => Date;
}

/** One request to a console page. */
export interface PageContext {
  readonly sources: ConsoleSources;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  /** Renders a table and offers it as `?csv=<its name>` on this page's URL. */
  table(table: ConsoleTable): SafeHtml;
  /** This page's URL with some query parameters changed (null removes one). */
  withQuery(changes: Readonly<Record<string, string | null>>): string;
}

export type PageResult =
  | {
      readonly kind: 'page';
      readonly title: string;
      readonly section: Section;
      readonly body: HtmlValue;
      readonly scripts?: readonly string[];
    }
  | { readonly kind: 'redirect'; readonly to: string }
  | { readonly kind: 'not_found'; readonly what: string }
  | { readonly kind: 'bad_request'; readonly problem: string; readonly back: string }
  | { readonly kind: 'json'; readonly body: unknown };

export type PageHandler = (context: PageContext) => Promise<PageResult>;
