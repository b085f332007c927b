import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'reports/**', '.stryker-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read the environment only in entry points (src/cli).',
        },
      ],
    },
  },
  // Imports run one way along the data flow (docs/architecture.md, "Imports").
  restrictImports('src/ingress/**', ['worker', 'mirror', 'reconciler', 'scheduler', 'sandbox']),
  restrictImports('src/mirror/**', [
    'ingress',
    'inbox',
    'queue',
    'worker',
    'reconciler',
    'scheduler',
    'sandbox',
  ]),
  restrictImports('src/domain/**', [
    'ingress',
    'inbox',
    'queue',
    'worker',
    'mirror',
    'db',
    'reconciler',
    'scheduler',
    'notifications',
    'sandbox',
  ]),
  restrictImports('src/sandbox/**', [
    'ingress',
    'inbox',
    'queue',
    'worker',
    'mirror',
    'db',
    'reconciler',
    'scheduler',
  ]),
  // The console's script runs in the browser, as the file it is (no build step).
  {
    files: ['assets/console/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        DOMParser: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
  {
    files: ['src/cli/**', 'test/**', 'bench/**', 'drizzle.config.ts', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);

function restrictImports(files, folders) {
  return {
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: folders.map((folder) => ({
            group: [`../${folder}/*`, `../../${folder}/*`],
            message: `${files} must not import ${folder} (see docs/architecture.md, Imports)`,
          })),
        },
      ],
    },
  };
}
