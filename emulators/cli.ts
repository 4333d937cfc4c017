// Runs the emulator as a process, for the demo and for CI jobs that point the action at it.
// stdout carries exactly one line (the URL) so a caller can read it; the request log goes to
// stderr and never includes the Authorization header. With --marks, each line read from stdin is
// written back to stderr once the requests answered before it are logged: a caller (the demo) can
// tell which requests came before a point of its own; with --state-file too, every create and
// message so far (its status, job and prompt: what the quota counts, as the agent reads it) is
// written there, as JSON, just before the line comes back. The end of stdin stops the emulator.
import { renameSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { FINISHED_JOB_REFUSAL_STATUSES, startEmulator, type EmulatorOptions } from './server.js';

const USAGE =
  'usage: emulator [--port N] [--key KEY] [--active-polls N] [--final completed|failed|archived]' +
  ' [--base-path /prefix] [--docs-repo-url URL] [--url-file PATH] [--marks [--state-file PATH]]' +
  ' [--rate-limit [--rate-limit-times N] [--rate-limit-header "Name: value"]...]' +
  ` [--refuse-finished-messages ${FINISHED_JOB_REFUSAL_STATUSES.join('|')} [--refuse-finished-messages-error TEXT]]`;

const FINAL_STATUSES = ['completed', 'failed', 'archived'];

type CliOptions = EmulatorOptions & { urlFile?: string; marks?: boolean; stateFile?: string };

/** A create or a message as the service took it (or refused it), for --state-file. */
interface Sent {
  route: 'create' | 'message';
  status: number | 'dropped';
  jobId?: string;
  prompt?: unknown;
}

function parseOptions(argv: string[]): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      key: { type: 'string' },
      'active-polls': { type: 'string' },
      final: { type: 'string' },
      'base-path': { type: 'string' },
      'docs-repo-url': { type: 'string' },
      'url-file': { type: 'string' },
      marks: { type: 'boolean' },
      'state-file': { type: 'string' },
      // A follow-up to a completed, failed or archived job gets this status instead of being taken.
      'refuse-finished-messages': { type: 'string' },
      'refuse-finished-messages-error': { type: 'string' },
      // Creates and messages answer 429 with these headers (e.g. "Retry-After: 0").
      'rate-limit': { type: 'boolean' },
      'rate-limit-times': { type: 'string' },
      'rate-limit-header': { type: 'string', multiple: true },
    },
    strict: true,
    allowPositionals: false,
  });
  const options: CliOptions = {};
  if (values.port !== undefined) options.port = integer('--port', values.port, 65_535);
  if (values.key !== undefined) options.apiKey = values.key;
  if (values['active-polls'] !== undefined) {
    options.activePolls = integer('--active-polls', values['active-polls'], 1_000_000);
  }
  if (values.final !== undefined) {
    if (!FINAL_STATUSES.includes(values.final)) {
      throw new Error(`--final must be one of ${FINAL_STATUSES.join(', ')}, not "${values.final}"`);
    }
    options.final = { status: values.final };
  }
  if (values['base-path'] !== undefined) options.basePath = values['base-path'];
  if (values['docs-repo-url'] !== undefined) options.docsRepoUrl = values['docs-repo-url'];
  if (values['url-file'] !== undefined) options.urlFile = values['url-file'];
  if (values.marks) options.marks = true;
  if (values['state-file'] !== undefined) {
    if (!values.marks) throw new Error('--state-file needs --marks');
    options.stateFile = values['state-file'];
  }
  const refuse = values['refuse-finished-messages'];
  const refusalError = values['refuse-finished-messages-error'];
  if (refuse !== undefined) {
    const status = FINISHED_JOB_REFUSAL_STATUSES.find((allowed) => String(allowed) === refuse);
    if (status === undefined) {
      throw new Error(
        `--refuse-finished-messages must be one of ${FINISHED_JOB_REFUSAL_STATUSES.join(', ')}, not "${refuse}"`,
      );
    }
    options.finishedJobMessages = { status, ...(refusalError !== undefined && { error: refusalError }) };
  } else if (refusalError !== undefined) {
    throw new Error('--refuse-finished-messages-error needs --refuse-finished-messages');
  }
  const limitHeaders = values['rate-limit-header'] ?? [];
  if (values['rate-limit']) {
    const headers: Record<string, string> = {};
    for (const line of limitHeaders) {
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon).trim() : '';
      if (!/^[!#$%&'*+.^_`|~\w-]+$/.test(name)) {
        throw new Error(`--rate-limit-header must be "Name: value", not "${line}"`);
      }
      headers[name.toLowerCase()] = line.slice(colon + 1).trim();
    }
    options.rateLimit = {
      headers,
      ...(values['rate-limit-times'] !== undefined && {
        times: integer('--rate-limit-times', values['rate-limit-times'], 1_000_000),
      }),
    };
  } else if (limitHeaders.length > 0 || values['rate-limit-times'] !== undefined) {
    throw new Error('--rate-limit-header and --rate-limit-times need --rate-limit');
  }
  return options;
}

function integer(flag: string, text: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > max) throw new Error(`${flag} must be a whole number from 0 to ${max}`);
  return value;
}

async function main(): Promise<void> {
  let options: CliOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    process.exit(2);
  }
  const { urlFile, marks, stateFile, ...emulatorOptions } = options;
  const sent: Sent[] = [];
  const emulator = await startEmulator({
    ...emulatorOptions,
    onReply: (request, status) => {
      process.stderr.write(`${request.method} ${request.path} -> ${status}\n`);
      if (request.route === 'create' || request.route === 'message') {
        const prompt = (request.json as { prompt?: unknown } | undefined)?.prompt;
        sent.push({ route: request.route, status, ...(request.jobId && { jobId: request.jobId }), prompt });
      }
    },
  });

  if (urlFile !== undefined) {
    // Written whole and renamed into place, so a caller waiting for the file never reads half a URL.
    writeFileSync(`${urlFile}.tmp`, emulator.url);
    renameSync(`${urlFile}.tmp`, urlFile);
  }
  process.stdout.write(`emulator listening on ${emulator.url}\n`);

  const stop = (): void => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (marks) {
    // Each request is logged as it is answered, so a mark needs only to follow the log. The end of
    // stdin is the end of the caller: the emulator stops with it rather than outlive it.
    createInterface({ input: process.stdin })
      .on('line', (line) => {
        if (stateFile !== undefined) {
          writeFileSync(`${stateFile}.tmp`, JSON.stringify({ sent }));
          renameSync(`${stateFile}.tmp`, stateFile);
        }
        process.stderr.write(`${line}\n`);
      })
      .once('close', stop);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`emulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
