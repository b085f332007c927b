import process from 'node:process';
import { appendFileSync } from 'node:fs';

const file = process.env.PAYMIRROR_TEST_LOADED_MODULES;

export async function load(url, context, next) {
  if (file) appendFileSync(file, `${url}\n`);
  return next(url, context);
}
