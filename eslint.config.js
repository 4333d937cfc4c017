import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  // Type-aware: floating promises, unsafe any, unbound methods and the like need the types.
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly' },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
      // An async function without await is how a promise-returning signature is kept uniform
      // (fakes and stand-ins of async APIs).
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['__tests__/**'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      // Assertions made through the fixtures' helpers count as assertions.
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expectFailure', 'shapes'] }],
      'jest/no-conditional-expect': 'error',
      // Emulators check their contract violations when a file's tests are done.
      'jest/no-standalone-expect': ['error', { additionalTestBlockFunctions: ['afterAll', 'afterEach'] }],
    },
  },
);
