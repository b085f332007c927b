import { readFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/config.js';
import { renderConfigurationReference } from '../../src/config/configurationReference.js';

describe('docs/configuration.md', () => {
  it('is what the schema generates (run npm run docs:config after changing a setting)', async () => {
    const options = (await resolveConfig('docs/configuration.md')) ?? {};
    const expected = await format(renderConfigurationReference(), {
      ...options,
      parser: 'markdown',
    });
    expect(readFileSync('docs/configuration.md', 'utf8')).toBe(expected);
  });

  it('names every setting the schema reads', () => {
    const text = readFileSync('docs/configuration.md', 'utf8');
    for (const name of Object.keys(envSchema.shape)) expect(text).toContain(`| \`${name}\``);
  });
});
