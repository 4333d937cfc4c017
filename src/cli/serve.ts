import type { Command } from 'commander';
import { startRuntime } from '../runtime.js';
import type { Runtime } from '../runtime.js';
import { configOrExit } from './common.js';

/** SIGTERM/SIGINT: stop gracefully once; a second signal exits at once. */
export function stopOnSignals(runtime: Runtime): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    runtime.log.info({ signal }, 'shutting down');
    runtime.stop().then(
      () => {
        runtime.log.info('stopped');
        process.exit(0);
      },
      (err: Error) => {
        runtime.log.error({ err: err.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`--port must be 0 to 65535, got "${value}"`);
  return n;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP API and (unless --no-worker) a worker in one process')
    .option('--port <port>', 'port to listen on (REDLINE_PORT, default 8080)', parsePort)
    .option('--no-worker', 'serve the API only; run `redline worker` elsewhere')
    .action(async (opts: { port?: number; worker: boolean }) => {
      const config = configOrExit({ port: opts.port });
      const runtime = await startRuntime({ config, worker: opts.worker });
      stopOnSignals(runtime);
      runtime.log.info(
        { url: runtime.url, publicUrl: config.publicUrl, database: runtime.database.dialect },
        `Redline listening on ${runtime.url}`,
      );
    });
}
