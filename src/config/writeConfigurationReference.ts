import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigurationReference } from './configurationReference.js';

/** `npm run docs:config`: rewrites docs/configuration.md from the schema. */
const target = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
writeFileSync(target, renderConfigurationReference());
process.stdout.write(`wrote ${target}\n`);
