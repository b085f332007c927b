import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment only in entry points (src/cli).' },
      ],
    },
  },
  {
    files: ['src/cli/**', 'test/**', 'bench/**', 'drizzle.config.ts', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
