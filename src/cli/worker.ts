import type { Command } from 'commander';
import { startRuntime } from '../runtime.js';
import { configOrExit } from './common.js';
import { stopOnSignals } from './serve.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run workers only (no HTTP); any number can share one Postgres database')
    .action(async () => {
      const runtime = await startRuntime({ config: configOrExit(), http: false });
      stopOnSignals(runtime);
    });
}
