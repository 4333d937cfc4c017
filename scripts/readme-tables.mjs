// `npm run docs`: the tables the docs hold that code can write, so none drifts from what it shows.
// The README's input and output tables come from action.yml (the contract workflows are written
// against); docs/development.md's benchmark table comes from the figures the last `npm run bench`
// measured (docs/bench.json) and the files the build put in dist/ (their sizes read here, so the
// table lists exactly the chunks the build makes); the README's price table and docs/examples.md's
// price sentence come from the lives `npm run bench:life` played (docs/bench-life.json). The
// benches only measure: this script alone rewrites the docs. `--check` only compares, and exits 1
// with the command to run when they differ; tests call `check` in process.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where each generated table lives and what it is made from; any path may be replaced. */
export function paths(overrides = {}) {
  return {
    readme: join(ROOT, 'README.md'),
    action: join(ROOT, 'action.yml'),
    development: join(ROOT, 'docs', 'development.md'),
    examples: join(ROOT, 'docs', 'examples.md'),
    bench: join(ROOT, 'docs', 'bench.json'),
    lives: join(ROOT, 'docs', 'bench-life.json'),
    dist: join(ROOT, 'dist'),
    ...overrides,
  };
}

const cell = (text) =>
  String(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
const code = (text) => (text === undefined || text === '' ? '' : `\`${text}\``);

/** The README's `inputs` and `outputs` tables from action.yml's text. */
export function actionTables(actionText) {
  const action = parse(actionText);
  return {
    inputs: [
      '| input | required | default | meaning |',
      '|---|---|---|---|',
      ...Object.entries(action.inputs).map(
        ([name, input]) =>
          `| \`${name}\` | ${input.required ? 'yes' : 'no'} | ${code(input.default)} | ${cell(input.description)} |`,
      ),
    ].join('\n'),
    outputs: [
      '| output | value |',
      '|---|---|',
      ...Object.entries(action.outputs).map(
        ([name, output]) => `| \`${name}\` | ${cell(output.description)} |`,
      ),
    ].join('\n'),
  };
}

/** The bytes of undici's sources in dist/index.js, by its source map. */
function undiciBytes(dist) {
  const map = JSON.parse(readFileSync(join(dist, 'index.js.map'), 'utf8'));
  return map.sources.reduce(
    (sum, source, i) =>
      sum + (source.includes('node_modules/undici/') ? (map.sourcesContent?.[i]?.length ?? 0) : 0),
    0,
  );
}

/** A row for each JavaScript file of dist/ and one for all of them, next to the 2 MB budget. */
export function sizeRows(dist) {
  const sizes = readdirSync(dist)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((file) => [file, statSync(join(dist, file)).size]);
  const total = sizes.reduce((sum, [, size]) => sum + size, 0);
  const kB = (bytes) => `${(bytes / 1024).toFixed(0)} kB`;
  return [
    ...sizes.map(([file, size]) => [
      `dist/${file} size`,
      kB(size),
      file === 'index.js' ? `undici alone ${kB(undiciBytes(dist))}` : 'loaded only when asked for',
      `${((size / total) * 100).toFixed(0)} % of dist/`,
    ]),
    [
      'dist/ JavaScript in all',
      kB(total),
      '2048 kB budget',
      `${((total / (2 * 1024 * 1024)) * 100).toFixed(0)} % of budget`,
    ],
  ];
}

/**
 * The benchmark table: the start-up figures `npm run bench` measured, the sizes of dist/ as built
 * now, then the simulated jobs and the memory it measured.
 */
export function benchTable(bench, dist) {
  const header = ['figure', 'action', 'baseline (same run)', 'ratio'];
  const rows = [...bench.startup, ...sizeRows(dist), ...bench.waiting];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    `Measured with ${bench.setup}.`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ].join('\n');
}

/** One life's measured figures, from docs/bench-life.json. */
const livesOf = (measured) => (life, docs, wait) =>
  measured.lives.find((l) => l.life === life && l.docs === docs && l.wait === wait);
const billedCell = (l) =>
  `${l.billed}${l.billedInDocsRepository > 0 ? ` + ${l.billedInDocsRepository}` : ''}`;
const paysFrom = (b) => (b.paysFrom === null ? 'never' : b.paysFrom.toFixed(1));

/**
 * The README's price table: what each life cost as `npm run bench:life` played it, waiting and
 * not, with the docs in the code repository and apart, and from how many pull requests a day not
 * waiting pays for its schedule (the bench's break-even, from the measured minutes).
 */
export function livesTable(measured) {
  const figures = livesOf(measured);
  const { schedule } = measured;
  const header = ['pull request', 'docs', 'uses', '`wait: true`', '`false`', 'lag', 'pays from'];
  const rows = measured.breakEven.map((b, i) => {
    const waiting = figures(b.life, b.docs, true);
    const not = figures(b.life, b.docs, false);
    return [
      measured.breakEven[i - 1]?.life === b.life ? '' : b.life,
      b.docs === 'monorepo' ? 'here' : 'apart',
      waiting.uses === not.uses ? waiting.uses : `${waiting.uses} / ${not.uses}`,
      billedCell(waiting),
      billedCell(not),
      not.lag,
      paysFrom(b),
    ];
  });
  // Waiting, a result shows as soon as the waiting run's next poll sees the end: said once.
  const waitingLag = Math.max(...measured.lives.filter((l) => l.wait).map((l) => l.worstLag));
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [
    `From \`npm run bench\` (${measured.setup}). Billed minutes; docs \`apart\`: \`+ n\` in their repository's dispatch jobs. Lag: minutes from the agent's end to the result on GitHub (waiting: ${waitingLag} at most). Not waiting adds the schedule (\`${schedule.cron}\`): ${schedule.billedPerDay} billed minutes a day whatever happens, paid for from the pull requests a day in the last column.`,
    '',
    line(header),
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

/** docs/examples.md's price sentence: the recipe's pull request, waiting and not, from the same figures. */
export function priceSentence(measured) {
  const figures = livesOf(measured);
  const { schedule } = measured;
  const here = {
    waiting: figures(measured.recipe, 'monorepo', true),
    not: figures(measured.recipe, 'monorepo', false),
  };
  const apart = {
    waiting: figures(measured.recipe, 'docs repository', true),
    not: figures(measured.recipe, 'docs repository', false),
  };
  const pays = (docs) =>
    paysFrom(measured.breakEven.find((b) => b.life === measured.recipe && b.docs === docs));
  const uses =
    here.waiting.uses === here.not.uses && apart.waiting.uses === apart.not.uses
      ? 'the same quota uses'
      : `${here.not.uses} quota uses instead of ${here.waiting.uses}`;
  return (
    `What it costs is in the README's [price table](../README.md#not-holding-a-runner). For the recipe's pull request, in a monorepo: ${here.not.billed} billed minutes instead of ${here.waiting.billed}, ${uses}, each result on GitHub ${here.not.lag} minutes after the agent's end. With the docs in another repository: ${apart.not.billed} instead of ${apart.waiting.billed}, and ${apart.not.billedInDocsRepository} there for its dispatch jobs; a result ${apart.not.lag} minutes after the end. ` +
    `The schedule (\`${schedule.cron}\`) adds ${schedule.billedPerDay} billed minutes a day whatever happens: not waiting pays from ${pays('monorepo')} such pull requests a day in a monorepo, ${pays('docs repository')} with the docs apart.`
  );
}

const blockPattern = (name, source) =>
  new RegExp(`<!-- ${name}: generated from ${source} by npm run docs -->[\\s\\S]*?<!-- end of ${name} -->`);
function replaceBlock(path, text, name, source, table) {
  const pattern = blockPattern(name, source);
  if (!pattern.test(text)) throw new Error(`${path} has no ${name} block`);
  return text.replace(
    pattern,
    () => `<!-- ${name}: generated from ${source} by npm run docs -->\n${table}\n<!-- end of ${name} -->`,
  );
}

/**
 * Each generated file (`readme`, `development`, `examples`, or those named in `only`) as it is and
 * as it should be, with what to run when they differ.
 */
export function generate(overrides = {}, only = ['readme', 'development', 'examples']) {
  const at = paths(overrides);
  const files = {
    readme: () => {
      const readme = readFileSync(at.readme, 'utf8');
      const tables = actionTables(readFileSync(at.action, 'utf8'));
      const lives = livesTable(JSON.parse(readFileSync(at.lives, 'utf8')));
      let updated = replaceBlock(at.readme, readme, 'inputs', 'action.yml', tables.inputs);
      updated = replaceBlock(at.readme, updated, 'outputs', 'action.yml', tables.outputs);
      updated = replaceBlock(at.readme, updated, 'lives', 'docs/bench-life.json', lives);
      return {
        path: at.readme,
        text: readme,
        updated,
        drift:
          'The README tables differ from action.yml and docs/bench-life.json: run `npm run docs` and commit README.md.',
        said: 'README.md: input, output and price tables updated from action.yml and docs/bench-life.json.',
      };
    },
    development: () => {
      const development = readFileSync(at.development, 'utf8');
      const bench = JSON.parse(readFileSync(at.bench, 'utf8'));
      return {
        path: at.development,
        text: development,
        updated: replaceBlock(
          at.development,
          development,
          'bench',
          'docs/bench.json and dist/',
          benchTable(bench, at.dist),
        ),
        drift:
          'The benchmark table in docs/development.md differs from docs/bench.json and dist/: run `npm run docs` (after `npm run build`) and commit docs/development.md.',
        said: 'docs/development.md: benchmark table updated from docs/bench.json and dist/.',
      };
    },
    examples: () => {
      const examples = readFileSync(at.examples, 'utf8');
      const measured = JSON.parse(readFileSync(at.lives, 'utf8'));
      return {
        path: at.examples,
        text: examples,
        updated: replaceBlock(
          at.examples,
          examples,
          'price',
          'docs/bench-life.json',
          priceSentence(measured),
        ),
        drift:
          'The price sentence in docs/examples.md differs from docs/bench-life.json: run `npm run docs` and commit docs/examples.md.',
        said: 'docs/examples.md: price sentence updated from docs/bench-life.json.',
      };
    },
  };
  return only.map((name) => {
    if (!(name in files))
      throw new Error(`No generated file "${name}": name ${Object.keys(files).join(', ')}.`);
    return files[name]();
  });
}

/** What differs, one line each: empty when every generated table is as its sources say. */
export function check(overrides = {}, only = undefined) {
  return generate(overrides, only)
    .filter((file) => file.updated !== file.text)
    .map((file) => file.drift);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  // Files named (`development`, `readme`, `examples`) limit it to them: a bench that measured one
  // table's figures rewrites that table, and leaves the rest to `npm run docs`.
  const named = args.filter((arg) => !arg.startsWith('--'));
  const only = named.length > 0 ? named : undefined;
  if (args.includes('--check')) {
    const problems = check({}, only);
    for (const problem of problems) console.error(problem);
    if (problems.length > 0) process.exit(1);
  } else {
    for (const file of generate({}, only)) {
      if (file.updated === file.text) continue;
      writeFileSync(file.path, file.updated);
      console.log(file.said);
    }
  }
}
