/** What a mirror write did with one notification: recorded as the inbox row's `outcome`. */
export type MirrorOutcome =
  | {
      readonly outcome: 'applied';
      readonly from: string | null;
      readonly to: string;
      readonly needsReconcile: boolean;
    }
  | { readonly outcome: 'noop' }
  | { readonly outcome: 'stale'; readonly reason: string }
  | { readonly outcome: 'invalid'; readonly reason: string };
