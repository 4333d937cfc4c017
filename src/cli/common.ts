import { ConfigError, loadConfig } from '../config.js';
import type { Config, ConfigOverrides } from '../config.js';
import { RedlineError } from '../errors.js';
import { createLogger } from '../log.js';
import { openServices } from '../runtime.js';

/** Loads the configuration or exits with one line per bad variable. */
export function configOrExit(overrides: ConfigOverrides = {}): Config {
  try {
    return loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) console.error(`redline: ${p}`);
      process.exit(2);
    }
    throw err;
  }
}

type Services = Awaited<ReturnType<typeof openServices>> & { config: Config };

/** Runs a short command against the database and closes it; user errors exit 1 with their message. */
export async function withServices(fn: (s: Services) => Promise<void>): Promise<void> {
  const config = configOrExit();
  const services = { ...(await openServices(config, createLogger('warn', process.stderr as never))), config };
  try {
    await fn(services);
  } catch (err) {
    if (err instanceof RedlineError) {
      console.error(`redline: ${err.message}`);
      process.exitCode = 1;
      return;
    }
    throw err;
  } finally {
    await services.notifier.close();
    await services.database.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** A plain table for people; --json is the format for scripts. */
export function printTable(rows: Record<string, string>[]): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(cols.map((c) => c.toUpperCase())));
  for (const r of rows) console.log(line(cols.map((c) => r[c] ?? '')));
}
