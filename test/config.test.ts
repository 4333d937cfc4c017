import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has embedded defaults that need no set-up', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.publicUrl).toBe('http://localhost:8080');
    expect(c.databaseUrl).toBeNull();
    expect(c.dataDir.endsWith('.redline')).toBe(true);
    expect(c.rateLimitPerHour).toBe(100);
    expect(c.maxPromptChars).toBe(32000);
    expect(c.maxBodyBytes).toBe(256 * 1024);
    expect(c.workerConcurrency).toBe(2);
    expect(c.model).toBeNull();
    expect(c.secretKey).toBeNull();
  });

  it('takes --port over REDLINE_PORT and derives the public URL from it', () => {
    const c = loadConfig({ REDLINE_PORT: '9000' }, { port: 9100 });
    expect(c.port).toBe(9100);
    expect(c.publicUrl).toBe('http://localhost:9100');
    expect(loadConfig({ REDLINE_PUBLIC_URL: 'https://docs.acme.dev/redline/' }).publicUrl).toBe(
      'https://docs.acme.dev/redline',
    );
  });

  it('reports every bad value at once, one line each, naming the variable', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        REDLINE_PORT: 'eighty',
        REDLINE_PUBLIC_URL: 'ftp://x',
        REDLINE_DATABASE_URL: 'mysql://x',
        REDLINE_SECRET_KEY: 'short',
        REDLINE_RATE_LIMIT_PER_HOUR: '0',
        REDLINE_MAX_PROMPT_CHARS: '-1',
        REDLINE_WORKER_CONCURRENCY: '1.5',
        REDLINE_MODEL: 'gpt-4',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = error!.problems.map((p) => p.split(' ')[0]);
    expect(names.sort()).toEqual(
      [
        'REDLINE_DATABASE_URL',
        'REDLINE_MAX_PROMPT_CHARS',
        'REDLINE_MODEL',
        'REDLINE_PORT',
        'REDLINE_PUBLIC_URL',
        'REDLINE_RATE_LIMIT_PER_HOUR',
        'REDLINE_SECRET_KEY',
        'REDLINE_WORKER_CONCURRENCY',
      ].sort(),
    );
    expect(error!.problems.join('\n')).not.toContain('short');
  });

  it('refuses URLs with credentials and never echoes them', () => {
    for (const name of ['REDLINE_PUBLIC_URL', 'OPENAI_BASE_URL', 'REDLINE_OPENAI_COMPATIBLE_URL']) {
      let error: ConfigError | undefined;
      try {
        loadConfig({ [name]: 'https://user:sk-live-123@example.com/v1' });
      } catch (err) {
        error = err as ConfigError;
      }
      expect(error?.problems).toHaveLength(1);
      expect(error!.problems[0]).toMatch(new RegExp(`^${name} `));
      expect(error!.message).not.toContain('sk-live-123');
    }
  });
});
