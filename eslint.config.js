import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import { readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

const { devDependencies } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

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
    // src/ is the product and ships in dist/: it imports neither the test support (the
    // emulators) nor any devDependency.
    files: ['src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/emulators', '**/emulators/**', '**/__fixtures__/**', '**/__tests__/**'],
              message: 'src/ is the product: test support (emulators/, __fixtures__/) never ships in dist/.',
            },
            {
              group: Object.keys(devDependencies).flatMap((name) => [name, `${name}/*`]),
              message: 'src/ ships in dist/: it imports no devDependency.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['__tests__/**'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      // Assertions made through the fixtures' helpers count as assertions.
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expectFailure'] }],
      'jest/no-conditional-expect': 'error',
      // Emulators check their contract violations when a file's tests are done.
      'jest/no-standalone-expect': ['error', { additionalTestBlockFunctions: ['afterAll', 'afterEach'] }],
    },
  },
);
