/**
 * Module resolution hook: when src/runtime/startPaymirror.ts imports the inbox store or the
 * queue catalog, it gets the bench's batched stand-in instead (everything else unchanged).
 */
const batch = new Set((process.env.BENCH_BATCH ?? '').split(',').filter(Boolean));

const SWAPS: Record<string, { when: string; url: URL }> = {
  '../inbox/storeDelivery.js': {
    when: 'store',
    url: new URL('./storeDelivery.ts', import.meta.url),
  },
  '../queue/catalog.js': { when: 'enqueue', url: new URL('./catalog.ts', import.meta.url) },
};

interface ResolveContext {
  readonly parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<unknown> {
  const swap = SWAPS[specifier];
  if (
    swap &&
    batch.has(swap.when) &&
    context.parentURL?.endsWith('/src/runtime/startPaymirror.ts')
  ) {
    // Through the next hooks (tsx's), so that the stand-in is loaded as TypeScript.
    return nextResolve(swap.url.href, context);
  }
  return nextResolve(specifier, context);
}
