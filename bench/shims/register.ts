import { register } from 'node:module';

/**
 * `node --import tsx --import ./bench/shims/register.ts src/cli/main.ts start --role ingress`
 * runs paymirror's own startPaymirror with the batched store and/or enqueue swapped in
 * (BENCH_BATCH=store,enqueue): the wiring change measured before it is made in src/.
 */
register(new URL('./hooks.ts', import.meta.url));
