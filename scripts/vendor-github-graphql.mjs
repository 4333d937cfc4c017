// Cuts what the GitHub emulator's GraphQL needs out of GitHub's published GraphQL schema (the
// @octokit/graphql-schema package) into emulators/openapi/github/graphql.graphql: for each
// document in operations.json's `graphql`, the fields it selects (with all their arguments), every
// input and enum type those arguments take, whole, and the scalars. The emulator validates every
// GraphQL document it is sent against the cut, so the action's queries and mutations are checked
// against GitHub's schema without the package. Run it when the action sends a new document:
//   npm install --no-save @octokit/graphql-schema && node scripts/vendor-github-graphql.mjs
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isScalarType,
  parse,
  specifiedScalarTypes,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
} from 'graphql';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'emulators', 'openapi', 'github');
const { graphql: documents } = JSON.parse(readFileSync(join(out, 'operations.json'), 'utf8'));
const require = createRequire(import.meta.url);
// The package exports no package.json: looked for where node_modules lookup would find it.
const packageDir = (require.resolve.paths('@octokit/graphql-schema') ?? [])
  .map((dir) => join(dir, '@octokit', 'graphql-schema'))
  .find((dir) => existsSync(join(dir, 'schema.graphql')));
if (!packageDir) {
  console.error(
    '@octokit/graphql-schema is not installed: npm install --no-save @octokit/graphql-schema first.',
  );
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
// GitHub's schema defines a few fields twice; graphql-js would refuse it as SDL.
const schema = buildSchema(readFileSync(join(packageDir, 'schema.graphql'), 'utf8'), {
  assumeValidSDL: true,
});

/** Output types and the fields the documents select on each; input, enum and scalar types, whole. */
const selected = new Map();
const whole = new Set();
const builtIn = new Set(specifiedScalarTypes.map((t) => t.name));
function takeWhole(type) {
  const named = getNamedType(type);
  if (builtIn.has(named.name) || whole.has(named.name)) return;
  whole.add(named.name);
  if (isInputObjectType(named)) for (const field of Object.values(named.getFields())) takeWhole(field.type);
}
for (const text of documents) {
  const document = parse(text);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`${text}: ${errors.map((e) => e.message).join('; ')}`);
  const info = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(info, {
      Field() {
        const parent = info.getParentType();
        const field = info.getFieldDef();
        if (!parent || !field) return;
        if (!selected.has(parent.name)) selected.set(parent.name, new Set());
        selected.get(parent.name).add(field.name);
        for (const arg of field.args) takeWhole(arg.type);
        const type = getNamedType(field.type);
        if (isEnumType(type) || isScalarType(type)) takeWhole(type);
      },
    }),
  );
}

const args = (field) =>
  field.args.length === 0 ? '' : `(${field.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ')})`;
const blocks = [];
for (const [name, fields] of [...selected].sort(([a], [b]) => a.localeCompare(b))) {
  const type = schema.getType(name);
  const all = type.getFields();
  const lines = [...fields].sort().map((f) => `  ${f}${args(all[f])}: ${String(all[f].type)}`);
  blocks.push(`type ${name} {\n${lines.join('\n')}\n}`);
}
for (const name of [...whole].sort()) {
  const type = schema.getType(name);
  if (isScalarType(type)) blocks.push(`scalar ${name}`);
  else if (isEnumType(type))
    blocks.push(
      `enum ${name} {\n${type
        .getValues()
        .map((v) => `  ${v.name}`)
        .join('\n')}\n}`,
    );
  else if (isInputObjectType(type)) {
    const lines = Object.values(type.getFields()).map((f) => `  ${f.name}: ${String(f.type)}`);
    blocks.push(`input ${name} {\n${lines.join('\n')}\n}`);
  }
}
const header = `# Cut from @octokit/graphql-schema ${version} (schema.graphql, GitHub's published GraphQL schema) by
# scripts/vendor-github-graphql.mjs: the fields the documents in operations.json select, and the
# types their arguments take. MIT: see LICENSE.graphql-schema beside this file.
`;
writeFileSync(join(out, 'graphql.graphql'), `${header}\n${blocks.join('\n\n')}\n`);
copyFileSync(join(packageDir, 'LICENSE.md'), join(out, 'LICENSE.graphql-schema'));
// The cut must take every document as the whole schema does.
const cut = buildSchema(readFileSync(join(out, 'graphql.graphql'), 'utf8'));
for (const text of documents) {
  const errors = validate(cut, parse(text));
  if (errors.length > 0)
    throw new Error(`the cut refuses ${text}: ${errors.map((e) => e.message).join('; ')}`);
}
console.log(`graphql.graphql: ${selected.size} object types cut, ${whole.size} input, enum and scalar types`);
