// Cuts the GitHub operations the emulator serves out of GitHub's published OpenAPI description
// (the @octokit/openapi package, 385 MB installed, 13 MB a description) into small files kept in
// emulators/openapi/github/, with every component they refer to: the emulator's contract without
// the package. Run it when the emulator serves a new operation or to take a newer description:
//   npm install --no-save @octokit/openapi && node scripts/vendor-github-openapi.mjs
// To add an operation without taking a newer description, install the version the cut names in its
// `info.x-cut-from` (`npm install --no-save @octokit/openapi@23.0.2`); `npm uninstall --no-save
// @octokit/openapi` afterwards.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'emulators', 'openapi', 'github');
const wanted = JSON.parse(readFileSync(join(out, 'operations.json'), 'utf8'));
const require = createRequire(import.meta.url);
let packageDir;
try {
  packageDir = dirname(require.resolve('@octokit/openapi/package.json'));
} catch {
  console.error('@octokit/openapi is not installed: npm install --no-save @octokit/openapi first.');
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

for (const spec of wanted.specs) {
  const document = JSON.parse(readFileSync(join(packageDir, 'generated', `${spec}.json`), 'utf8'));
  const paths = {};
  for (const [method, template] of wanted.operations) {
    const item = document.paths[template];
    if (!item?.[method]) throw new Error(`${spec} has no ${method} ${template}`);
    paths[template] ??= item.parameters ? { parameters: item.parameters } : {};
    paths[template][method] = item[method];
  }
  const components = {};
  const take = (type, name) => {
    const node = document.components?.[type]?.[name];
    if (node === undefined) throw new Error(`${spec} has no component ${type}/${name}`);
    components[type] ??= {};
    if (components[type][name] !== undefined) return;
    components[type][name] = node;
    follow(node);
  };
  // Every `$ref` the taken parts make, to the last one: a schema's parts are schemas too.
  function follow(node) {
    if (Array.isArray(node)) return node.forEach(follow);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const [, type, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value) ?? [];
        if (!type) throw new Error(`${spec}: a $ref outside components: ${value}`);
        take(type, name.replace(/~1/g, '/').replace(/~0/g, '~'));
      } else follow(value);
    }
  }
  follow(paths);
  for (const name of wanted.schemas) take('schemas', name);
  for (const name of wanted.examples) {
    const items = document.components.examples[name] ? name : `${name}-items`;
    take('examples', items);
  }
  const cut = {
    openapi: document.openapi,
    info: { ...document.info, 'x-cut-from': `@octokit/openapi ${version}, generated/${spec}.json` },
    paths,
    components,
  };
  writeFileSync(join(out, `${spec}.json`), `${JSON.stringify(cut)}\n`);
  console.log(
    `${spec}: ${wanted.operations.length} operations, ${Object.values(components).reduce((n, c) => n + Object.keys(c).length, 0)} components`,
  );
}
copyFileSync(join(packageDir, 'LICENSE'), join(out, 'LICENSE'));
