import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DialectName } from './databases.js';
import { waitUntil } from './processes.js';
import { ScriptedModel } from './scripted-model.js';
import type { Step } from './scripted-model.js';
import { startTestServer } from './server.js';
import type { TestServer } from './server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS = path.resolve(HERE, '../../../shared/corpus/mintlify-docs');
export const FIXTURE = path.resolve(HERE, '../fixtures/mintlify-mini');

/**
 * The real corpus is read from ../shared (never copied into this repository). Without it these
 * tests are skipped with a message, except where REDLINE_REQUIRE_CORPUS=1 (CI) makes that a failure.
 */
export const HAVE_CORPUS = existsSync(path.join(CORPUS, 'docs.json'));
if (!HAVE_CORPUS) {
  if (process.env.REDLINE_REQUIRE_CORPUS === '1')
    throw new Error(`The test corpus is required but missing: ${CORPUS}`);
  console.warn(`Corpus not found at ${CORPUS}: skipping the tests that need it.`);
}

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Docs', '-c', 'user.email=docs@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });

/** A git repository (branch main, one commit) holding a copy of `source`. */
export function repoFrom(source: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'redline-repo-'));
  cpSync(source, dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'docs');
  return dir;
}

export function git(dir: string, ...args: string[]): string {
  return gitIn(dir, ...args);
}

export interface AgentTestServer extends TestServer {
  model: ScriptedModel;
  waitForJob(id: string, until?: (job: JobJson) => boolean): Promise<JobJson>;
}

export interface JobJson {
  id: string;
  status: string;
  prLink: string | null;
  summary: string | null;
  branch: string | null;
  error: { code: string; message: string } | null;
  checks: { file: string; line?: number; message: string }[] | null;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number } | null;
}

/** A server with its worker and the real agent, talking to a scripted model over HTTP. */
export async function startAgentServer(
  dialect: DialectName,
  o: {
    repository: string;
    script?: Step[];
    provider?: 'openai-compatible' | 'openai' | 'anthropic';
    env?: Record<string, string>;
  },
): Promise<AgentTestServer> {
  const model = await new ScriptedModel(o.script ?? []).start();
  const provider = o.provider ?? 'openai-compatible';
  const providerEnv: Record<string, string> =
    provider === 'anthropic'
      ? {
          REDLINE_MODEL: 'anthropic:claude-scripted',
          ANTHROPIC_API_KEY: 'sk-ant-test-secret-0000',
          ANTHROPIC_BASE_URL: model.url,
        }
      : provider === 'openai'
        ? {
            REDLINE_MODEL: 'openai:gpt-scripted',
            OPENAI_API_KEY: 'sk-openai-test-secret-0000',
            OPENAI_BASE_URL: model.url,
          }
        : {
            REDLINE_MODEL: 'openai-compatible:scripted',
            REDLINE_OPENAI_COMPATIBLE_URL: model.url,
            REDLINE_OPENAI_COMPATIBLE_API_KEY: 'sk-compat-test-secret-0000',
          };
  const s = await startTestServer(dialect, {
    worker: true,
    repository: o.repository,
    env: { REDLINE_MODEL_RETRY_BASE_MS: '10', REDLINE_LEASE_SECONDS: '5', ...providerEnv, ...o.env },
  });
  return {
    ...s,
    model,
    async waitForJob(id, until = (j) => j.status !== 'active') {
      return waitUntil(
        async () => {
          const j = (await s.api('GET', `job/${id}`)).json() as JobJson;
          return until(j) && j;
        },
        `job ${id}`,
        60_000,
      );
    },
    async close() {
      await s.close();
      await model.close();
    },
  };
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
