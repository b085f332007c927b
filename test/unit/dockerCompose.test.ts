import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/config.js';

interface ComposeService {
  env_file?: { path: string; required: boolean }[];
  environment?: Record<string, string>;
  ports?: string[];
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, ComposeService>;
};
const paymirror = compose.services.paymirror as ComposeService;

/** `${NAME:-default}` → default, as docker compose interpolates it with NAME unset. */
function withDefaults(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

describe('docker-compose.yml', () => {
  it('binds the port to loopback unless PAYMIRROR_BIND says otherwise, the admin port always', () => {
    const ports = (paymirror.ports ?? []).map(withDefaults);
    expect(ports).toEqual(['127.0.0.1:3000:3000', '127.0.0.1:9090:9090']);
    expect(paymirror.ports?.[1]).toBe('127.0.0.1:9090:9090');
    expect(paymirror.environment).toMatchObject({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9090' });
  });

  it('runs in development unless NODE_ENV is set', () => {
    expect(withDefaults(paymirror.environment?.NODE_ENV ?? '')).toBe('development');
  });

  it('passes only settings paymirror knows', () => {
    const known = Object.keys(envSchema.shape);
    for (const name of Object.keys(paymirror.environment ?? {})) expect(known).toContain(name);
  });

  it('takes every other setting from an optional .env file', () => {
    expect(paymirror.env_file).toEqual([{ path: '.env', required: false }]);
  });
});
