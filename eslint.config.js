// ESLint with typescript-eslint: the recommended rules, plus the type-aware rules that catch async bugs.
// Formatting is Prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '**/__fixtures__/**',
      'bench/results/**',
      'examples/**/progress/**',
      'web/dist/**',
      'coverage/**',
      '.scratch/**',
      '.demo/**',
      '.agency-tools/**',
    ],
  },
  js.configs.recommended,
  {
    // Plain JavaScript files (the CLI launcher, this config, scripts) run on Node.
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // Passing a caught `unknown` along is how a runtime propagates failures; `any` is still refused.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true, allowThrowingAny: false }],
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingUnknown: true, allowThrowingAny: false },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
      // Guards match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
);
