// What `npm run demo` runs after its build of dist/ (which `npm test` has made before jest starts,
// and which must not be rebuilt under the end-to-end tests running beside this one): the
// emulators' bundles, then the demo, which plays three runs of the action on one pull request,
// five on a second under `followUp: at-merge` (a dry run, the push that creates the job, two
// pushes that send nothing, the merge), and a round of a `/docs` on the first one's docs pull
// request (forwarded, then sent by the thread's own run), and prints, for each, what GitHub would show: the log
// (masked, workflow commands rendered), then what the run sent, the outputs, the summary, the
// comment, the commit statuses and, on the first pull request, the reactions, with no secret and
// no `::add-mask::` anywhere.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../__fixtures__/runner.js';

const KEY = 'mint_emulator_key_0000000000000000';
/** The GitHub emulator's workflow token, as its CLI hands it to the demo. */
const TOKEN =
  /const DEMO_TOKEN = '([^']+)'/.exec(readFileSync(join(ROOT, 'emulators', 'github-cli.ts'), 'utf8'))?.[1] ??
  '';

/** The headings each run's sections are printed under, in the order they must come. */
const SECTIONS = [
  '\n--- Outputs ---\n',
  '\n--- Step summary ---\n',
  '\n--- Comment on acme/app#1 ---\n',
  '\n--- Commit statuses on ',
  '\n--- Reactions to the /docs comment ---\n',
];
/** The second pull request's: its own comment, and no `/docs` comment to react to. */
const AT_MERGE_SECTIONS = [
  '\n--- What the run sent ---\n',
  '\n--- Outputs ---\n',
  '\n--- Step summary ---\n',
  '\n--- Comment on acme/app#2 ---\n',
  '\n--- Commit statuses on acme/app#2',
];

/** A run's section under `heading`, up to the next heading. */
function section(run: string, heading: string): string {
  const start = run.indexOf(`\n--- ${heading} ---\n`);
  if (start < 0) return '';
  const end = run.indexOf('\n--- ', start + 1);
  return run.slice(start, end < 0 ? undefined : end);
}

function demo(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'npm run --silent build:emulator && node scripts/demo.mjs'], {
      cwd: ROOT,
      env: { ...process.env, RUNNER_DEBUG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    // A hang fails the test rather than the suite's run; the bound is generous, for a loaded machine.
    const timer = setTimeout(() => child.kill('SIGTERM'), 290_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm run demo', () => {
  it('prints each run as GitHub shows it: no secret, then outputs, summary, comment, statuses, reactions', async () => {
    const { code, output } = await demo();
    expect({ code, tail: output.slice(-2000) }).toEqual({ code: 0, tail: expect.any(String) });

    expect(TOKEN).toMatch(/^ghs_/);
    expect(output).not.toContain('::add-mask::');
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(TOKEN);
    // The comment's hidden markers and the summary's HTML are rendered, not printed.
    expect(output).not.toContain('<!--');
    expect(output).not.toContain('<table>');

    const runs = output.split('\n=== Run ').slice(1);
    expect(runs).toHaveLength(10);
    for (const run of runs.slice(0, 3)) {
      const at = SECTIONS.map((heading) => run.indexOf(heading));
      expect(at.every((i) => i >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      // What the run sent comes first, after the log.
      expect(run.indexOf('\n--- What the run sent ---\n')).toBeGreaterThan(0);
      expect(run.indexOf('\n--- What the run sent ---\n')).toBeLessThan(at[0]!);
    }
    for (const run of runs.slice(3, 8)) {
      const at = AT_MERGE_SECTIONS.map((heading) => run.indexOf(heading));
      expect(at.every((i) => i >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(run).not.toContain('Reactions to the /docs comment');
    }
    expect(runs.map((run) => /^mode += (\S+)$/m.exec(run)?.[1])).toEqual([
      'created',
      'followed-up',
      'skipped',
      // acme/app#2, under followUp: at-merge: the dry run, the first push, two pushes, the merge.
      'created',
      'created',
      'skipped',
      'skipped',
      'followed-up',
      // The review on acme/app#1's docs PR: the forwarded run, then the thread's own.
      'swept',
      'swept',
    ]);
    const outputs = (name: string) =>
      runs.map((run) => new RegExp(`^${name} += (\\S+)$`, 'm').exec(run)?.[1]);
    expect(outputs('uses')).toEqual(['1', '1', '0', '0', '1', '0', '0', '1', '0', '1']);
    expect(outputs('status')).toEqual([
      'completed',
      'completed',
      'skipped',
      'dry-run',
      'completed',
      'skipped',
      'skipped',
      'completed',
      'swept',
      'swept',
    ]);
    // An at-merge pull request's life costs two uses: the create and the merge's follow-up; the
    // review on the first one's docs PR, one more.
    expect(output).toContain('\nQuota uses spent: acme/app#1 3, acme/app#2 2.\n');

    // The dry run sends nothing and writes nothing, and its summary holds the whole prompt.
    const [dry, created, pushed, pushedAgain, merged] = runs.slice(3) as [
      string,
      string,
      string,
      string,
      string,
    ];
    expect(section(dry, 'What the run sent')).toMatch(
      /\nTo the service: nothing\.\nTo GitHub: nothing written \(\d+ reads?\)\.\n/,
    );
    const summary = section(dry, 'Step summary');
    expect(summary).toContain('Documentation agent: dry run');
    expect(summary).toContain('The prompt it would send');
    expect(summary).toContain('Follow the style guide in docs/STYLE.md.');
    expect(summary).toContain('added    src/rollback.ts (+3 −0)');
    expect(section(dry, 'Comment on acme/app#2')).toContain('(none yet)');

    // Without dryRun, the first push creates the thread's job; the pushes after it send nothing
    // and leave a success status that names the job.
    const job = /^jobId += (\S+)$/m.exec(created)?.[1] ?? '';
    expect(job).toMatch(/^job_/);
    expect(section(created, 'What the run sent')).toContain('To the service: a create (answered 201)');
    for (const [run, n] of [
      [pushed, 6],
      [pushedAgain, 7],
    ] as const) {
      expect(section(run, 'What the run sent')).toContain('\nTo the service: nothing.\n');
      expect(run).toContain(`Notice: Skipped: followUp is at-merge, so this sends nothing; job ${job} gets`);
      expect(section(run, "Commit statuses on acme/app#2's head commits")).toMatch(
        new RegExp(`\\n {2}success +docs agent: [^\\n]* +Docs follow at the merge: job ${job} · run ${n} `),
      );
    }

    // The merge sends one follow-up to that job, with what both skipped pushes changed (and not
    // what the job already saw), up to the pull request's own head.
    const sent = section(merged, 'What the run sent');
    expect(sent.match(/To the service: /g)).toHaveLength(1);
    expect(sent).toContain(`To the service: a message to job ${job} (answered 200)`);
    expect(sent).toContain('The pull request was merged: make its docs ready to merge.');
    for (const file of ['src/cli.ts', 'src/rollback.ts', 'src/rollback.test.ts'])
      expect(sent).toContain(` ${file} (`);
    expect(sent).not.toContain('src/releases.ts');
    expect(sent).toMatch(/\/compare\/b2c3d4e[0-9a-f]{33}\.\.\.d4e5f60[0-9a-f]{33}\n/);

    // mona's `/docs` on the docs PR: the forwarded run sends nothing and hands it to the thread's
    // own run, which sends it to the job that opened the docs PR, with its 👀 and an answer there.
    const [forwarded, lane] = runs.slice(8) as [string, string];
    expect(section(forwarded, 'What the run sent')).toContain('\nTo the service: nothing.\n');
    expect(forwarded).toContain('Started a run of docs.yml on refs/heads/main for #1');
    const asked = section(lane, 'What the run sent');
    expect(asked).toMatch(/To the service: a message to job job_\S+ \(answered 200\)/);
    expect(asked).toContain('1 request was made on the docs pull request of this thread:');
    expect(asked).toContain('Request 1 of 1, by mona');
    const docsPr = section(lane, 'Comments on acme/docs#1');
    expect(docsPr).toContain('📄 The docs for acme/app#1');
    expect(docsPr).toContain('This request was sent to agent job');
    expect(docsPr).toContain("Reactions to mona's request: 👀 eyes");
  }, 300_000);
});
