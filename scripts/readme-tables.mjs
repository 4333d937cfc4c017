// `npm run docs`: the README's input and output tables, generated from action.yml (the contract
// workflows are written against), so the two cannot drift. `--check` only compares, and exits 1
// with the command to run when they differ; a test runs it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const readmePath = option('--readme', `${root}README.md`);
const actionPath = option('--action', `${root}action.yml`);
const action = parse(readFileSync(actionPath, 'utf8'));

const cell = (text) =>
  String(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
const code = (text) => (text === undefined || text === '' ? '' : `\`${text}\``);

const inputs = [
  '| input | required | default | meaning |',
  '|---|---|---|---|',
  ...Object.entries(action.inputs).map(
    ([name, input]) =>
      `| \`${name}\` | ${input.required ? 'yes' : 'no'} | ${code(input.default)} | ${cell(input.description)} |`,
  ),
].join('\n');
const outputs = [
  '| output | value |',
  '|---|---|',
  ...Object.entries(action.outputs).map(([name, output]) => `| \`${name}\` | ${cell(output.description)} |`),
].join('\n');

const block = (name, table) =>
  `<!-- ${name}: generated from action.yml by npm run docs -->\n${table}\n<!-- end of ${name} -->`;
const replace = (text, name, table) => {
  const pattern = new RegExp(
    `<!-- ${name}: generated from action.yml by npm run docs -->[\\s\\S]*?<!-- end of ${name} -->`,
  );
  if (!pattern.test(text)) throw new Error(`${readmePath} has no ${name} block`);
  return text.replace(pattern, () => block(name, table));
};

const readme = readFileSync(readmePath, 'utf8');
const updated = replace(replace(readme, 'inputs', inputs), 'outputs', outputs);
if (args.includes('--check')) {
  if (updated !== readme) {
    console.error('The README tables differ from action.yml: run `npm run docs` and commit README.md.');
    process.exit(1);
  }
} else if (updated !== readme) {
  writeFileSync(readmePath, updated);
  console.log('README.md: input and output tables updated from action.yml.');
}
