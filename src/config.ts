import path from 'node:path';
import { z } from 'zod';

/**
 * Every setting Redline reads from the environment. Validated once at start-up so a bad value is
 * reported as one clear line naming the variable, not as a crash somewhere later.
 */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** False when publicUrl is only the default derived from the port. */
  publicUrlSet: boolean;
  dataDir: string;
  /** `postgres://…` to use Postgres; null means SQLite in `dataDir`. */
  databaseUrl: string | null;
  /** Null when unset: the runtime then loads or generates one in `dataDir`. */
  secretKey: string | null;
  rateLimitPerHour: number;
  maxPromptChars: number;
  maxBodyBytes: number;
  workerConcurrency: number;
  model: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  leaseSeconds: number;
  shutdownGraceSeconds: number;
  providers: ProviderSettings;
  agent: AgentSettings;
}

export interface AgentSettings {
  maxSteps: number;
  maxTokens: number;
  timeoutSeconds: number;
  modelTimeoutSeconds: number;
  modelMaxRetries: number;
  modelRetryBaseMs: number;
  stream: boolean;
  maxFileBytes: number;
  maxChangedFiles: number;
  gitAuthorName: string;
  gitAuthorEmail: string;
}

/** What the model registry needs to know to tell whether a provider can run here. */
export interface ProviderSettings {
  openaiApiKey: string | null;
  openaiBaseUrl: string | null;
  anthropicApiKey: string | null;
  anthropicBaseUrl: string | null;
  openaiCompatibleUrl: string | null;
  openaiCompatibleApiKey: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? null : v.trim()));

/** A number from the environment within [min, max]; whole numbers only unless `unit` is seconds. */
const numberIn = (min: number, max: number, fallback: number, unit: 'whole number' | 'number of seconds') =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const n = Number(v);
      const whole = unit === 'whole number';
      if (!Number.isFinite(n) || (whole && !Number.isInteger(n)) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a ${unit} from ${min} to ${max}, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });
const intIn = (min: number, max: number, fallback: number) => numberIn(min, max, fallback, 'whole number');
const secondsIn = (min: number, max: number, fallback: number) =>
  numberIn(min, max, fallback, 'number of seconds');

// The value is not echoed: a URL may carry a credential, and errors go to logs.
const httpUrl = optionalText.superRefine((v, ctx) => {
  if (v === null) return;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
    return;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
  if (u.username || u.password) {
    ctx.addIssue({
      code: 'custom',
      message: 'must not contain a user name or password; use the matching *_API_KEY variable',
    });
  }
});

export const MODEL_NAME = /^[a-z][a-z0-9-]*:\S+$/;

const envSchema = z.object({
  REDLINE_PORT: intIn(0, 65535, 8080),
  REDLINE_HOST: optionalText,
  REDLINE_PUBLIC_URL: httpUrl,
  REDLINE_DATA_DIR: optionalText,
  REDLINE_DATABASE_URL: optionalText.superRefine((v, ctx) => {
    if (v === null) return;
    if (!/^postgres(ql)?:\/\//.test(v)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a postgres:// URL (leave it unset to use SQLite in REDLINE_DATA_DIR)',
      });
    }
  }),
  REDLINE_SECRET_KEY: optionalText.superRefine((v, ctx) => {
    if (v !== null && v.length < 32) {
      ctx.addIssue({ code: 'custom', message: `must be at least 32 characters long, got ${v.length}` });
    }
  }),
  REDLINE_RATE_LIMIT_PER_HOUR: intIn(1, 1_000_000, 100),
  REDLINE_MAX_PROMPT_CHARS: intIn(1, 10_000_000, 32_000),
  REDLINE_MAX_BODY_BYTES: intIn(1024, 100 * 1024 * 1024, 256 * 1024),
  REDLINE_WORKER_CONCURRENCY: intIn(1, 256, 2),
  REDLINE_MODEL: optionalText.superRefine((v, ctx) => {
    if (v !== null && !MODEL_NAME.test(v)) {
      ctx.addIssue({
        code: 'custom',
        message: `must look like provider:model (e.g. openai:gpt-4.1), got "${v}"`,
      });
    }
  }),
  REDLINE_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .optional()
    .transform((v) => v ?? 'info'),
  REDLINE_LEASE_SECONDS: secondsIn(0.5, 3600, 30),
  REDLINE_SHUTDOWN_GRACE_SECONDS: secondsIn(0, 3600, 30),
  REDLINE_AGENT_MAX_STEPS: intIn(1, 1000, 40),
  REDLINE_AGENT_MAX_TOKENS: intIn(1000, 100_000_000, 1_000_000),
  REDLINE_AGENT_TIMEOUT_SECONDS: secondsIn(1, 86_400, 900),
  REDLINE_MODEL_TIMEOUT_SECONDS: secondsIn(0.1, 3600, 300),
  REDLINE_MODEL_MAX_RETRIES: intIn(0, 20, 3),
  REDLINE_MODEL_RETRY_BASE_MS: intIn(1, 60_000, 1000),
  REDLINE_MODEL_STREAM: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
  REDLINE_AGENT_MAX_FILE_BYTES: intIn(1024, 100 * 1024 * 1024, 1024 * 1024),
  REDLINE_AGENT_MAX_CHANGED_FILES: intIn(1, 10_000, 50),
  REDLINE_GIT_AUTHOR_NAME: optionalText,
  REDLINE_GIT_AUTHOR_EMAIL: optionalText,
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: httpUrl,
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: httpUrl,
  REDLINE_OPENAI_COMPATIBLE_URL: httpUrl,
  REDLINE_OPENAI_COMPATIBLE_API_KEY: optionalText,
});

export interface ConfigOverrides {
  port?: number;
}

/** Reads the configuration; throws ConfigError listing every bad variable at once. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: ConfigOverrides = {},
): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`);
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const port = overrides.port ?? e.REDLINE_PORT;
  return {
    port,
    host: e.REDLINE_HOST ?? '127.0.0.1',
    publicUrl: (e.REDLINE_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    publicUrlSet: e.REDLINE_PUBLIC_URL !== null,
    dataDir: path.resolve(e.REDLINE_DATA_DIR ?? '.redline'),
    databaseUrl: e.REDLINE_DATABASE_URL,
    secretKey: e.REDLINE_SECRET_KEY,
    rateLimitPerHour: e.REDLINE_RATE_LIMIT_PER_HOUR,
    maxPromptChars: e.REDLINE_MAX_PROMPT_CHARS,
    maxBodyBytes: e.REDLINE_MAX_BODY_BYTES,
    workerConcurrency: e.REDLINE_WORKER_CONCURRENCY,
    model: e.REDLINE_MODEL,
    logLevel: e.REDLINE_LOG_LEVEL,
    leaseSeconds: e.REDLINE_LEASE_SECONDS,
    shutdownGraceSeconds: e.REDLINE_SHUTDOWN_GRACE_SECONDS,
    providers: {
      openaiApiKey: e.OPENAI_API_KEY,
      openaiBaseUrl: e.OPENAI_BASE_URL,
      anthropicApiKey: e.ANTHROPIC_API_KEY,
      anthropicBaseUrl: e.ANTHROPIC_BASE_URL,
      openaiCompatibleUrl: e.REDLINE_OPENAI_COMPATIBLE_URL,
      openaiCompatibleApiKey: e.REDLINE_OPENAI_COMPATIBLE_API_KEY,
    },
    agent: {
      maxSteps: e.REDLINE_AGENT_MAX_STEPS,
      maxTokens: e.REDLINE_AGENT_MAX_TOKENS,
      timeoutSeconds: e.REDLINE_AGENT_TIMEOUT_SECONDS,
      modelTimeoutSeconds: e.REDLINE_MODEL_TIMEOUT_SECONDS,
      modelMaxRetries: e.REDLINE_MODEL_MAX_RETRIES,
      modelRetryBaseMs: e.REDLINE_MODEL_RETRY_BASE_MS,
      stream: e.REDLINE_MODEL_STREAM,
      maxFileBytes: e.REDLINE_AGENT_MAX_FILE_BYTES,
      maxChangedFiles: e.REDLINE_AGENT_MAX_CHANGED_FILES,
      gitAuthorName: e.REDLINE_GIT_AUTHOR_NAME ?? 'Redline',
      gitAuthorEmail: e.REDLINE_GIT_AUTHOR_EMAIL ?? 'redline@localhost',
    },
  };
}
