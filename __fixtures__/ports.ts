// Plain fakes of the ports decide and execute talk through (src/core/ports.ts) and of the service's
// client: each answers what the test set and records what it was asked, so a unit test of a step
// needs no emulator, no server and no process.
import { ServiceError, type Fault, type Operation, type ServiceCalls } from '../src/service/client.js';
import type { Access } from '../src/decide/gate.js';
import type { AgentJob } from '../src/core/job.js';
import type {
  Changed,
  DecideReads,
  DocsPull,
  ExecuteWrites,
  GitHubStarted,
  Memory,
  Moment,
  ThreadComment,
} from '../src/core/ports.js';

/** A call to the decide port, with its arguments (the signal left out). */
export type ReadCall =
  | ['accessOf', string]
  | ['recall', boolean]
  | ['docsPull', string]
  | ['docsOf']
  | ['accessOn', string, string]
  | ['context', string | undefined, number]
  | ['changedFiles', string | undefined]
  | ['moment']
  | ['skipped', string, string | undefined]
  | ['threadComments']
  | ['mergedAlongside'];

/** What the fake GitHub answers decide; an `Error` is thrown instead. */
export interface ReadAnswers {
  access?: Access;
  memory?: Memory | Error;
  docsPull?: DocsPull | Error;
  /** The thread a docs PR's note names (none unless told). */
  docsOf?: number | Error;
  /** The context section, or how it reads since a head (`undefined`: the whole change). */
  context?: string | ((since: string | undefined) => string);
  changed?: Changed;
  /** Where the run stands on its pull request (nothing held back unless told). */
  moment?: Moment;
  /** The thread's comments (none unless told), and where its workflow runs are. */
  comments?: ThreadComment[] | Error;
  /** The other merges a push landed (none unless told). */
  alongside?: { sha: string; number: number }[];
}

/** The decide port, answering from `answers` (settable at any time) and recording every call. */
export function fakeReads(
  answers: ReadAnswers = {},
): DecideReads & { answers: ReadAnswers; calls: ReadCall[] } {
  const calls: ReadCall[] = [];
  const answer = <T>(value: T | Error | undefined, fallback: T): Promise<T> =>
    value instanceof Error ? Promise.reject(value) : Promise.resolve(value ?? fallback);
  return {
    answers,
    calls,
    accessOf(actor) {
      calls.push(['accessOf', actor]);
      return Promise.resolve(answers.access);
    },
    recall(strict) {
      calls.push(['recall', strict]);
      return answer(answers.memory, {});
    },
    docsPull(prLink) {
      calls.push(['docsPull', prLink]);
      return answer<DocsPull>(answers.docsPull, { state: 'elsewhere' });
    },
    docsOf() {
      calls.push(['docsOf']);
      const { docsOf } = answers;
      return docsOf instanceof Error ? Promise.reject(docsOf) : Promise.resolve(docsOf);
    },
    docsAsks() {
      return Promise.resolve(undefined);
    },
    accessOn(link, actor) {
      calls.push(['accessOn', link, actor]);
      return Promise.resolve(answers.access);
    },
    context(since, limit) {
      calls.push(['context', since, limit]);
      const { context = '' } = answers;
      return Promise.resolve(typeof context === 'string' ? context : context(since));
    },
    changedFiles(since) {
      calls.push(['changedFiles', since]);
      return Promise.resolve(answers.changed ?? { files: [] });
    },
    moment() {
      calls.push(['moment']);
      return Promise.resolve(answers.moment ?? {});
    },
    threadComments() {
      calls.push(['threadComments']);
      return answer(answers.comments, []).then((comments) => ({
        comments,
        complete: true,
        runsUrl: 'https://github.com/acme/app/actions/runs/',
      }));
    },
    mergedAlongside() {
      calls.push(['mergedAlongside']);
      return Promise.resolve(answers.alongside ?? []);
    },
  };
}

/** What execute told the GitHub side once the job existed. */
export interface StartedCall {
  jobId: string;
  job: AgentJob | undefined;
  memory: Memory;
  /** What it handed back: the value execute passes on to the report. */
  handed: GitHubStarted;
}

/**
 * The execute port: records each `started` (also as `started <id>` in `timeline`, shared with
 * other fakes to tell the order of calls), and hands back work that is already done.
 */
export function fakeWrites(timeline: string[] = []): ExecuteWrites & { calls: StartedCall[] } {
  const calls: StartedCall[] = [];
  return {
    calls,
    started(jobId, job, memory) {
      timeline.push(`started ${jobId}`);
      const handed: GitHubStarted = { reaction: Promise.resolve(), posting: Promise.resolve({}) };
      calls.push({ jobId, job, memory, handed });
      return handed;
    },
  };
}

/** A request the fake service was sent. */
export type ServiceCall = ['create', string] | ['message', string, string] | ['get', string];

/** One answer of the service: the job it sends back, or the fault the real client would throw. */
export type ServiceAnswer = AgentJob | { fault: Fault };

/** What the service answers, in order, for each kind of call. */
export type ServiceScript = Partial<Record<Operation, ServiceAnswer[]>>;

/**
 * The agent service as the client shows it: each call takes the next answer scripted for its
 * kind (a fault becomes the client's own `ServiceError`); a call with none left fails the test.
 * Each call is also told to `timeline` (`create`, `message <id>`, `get <id>`).
 */
export class FakeService implements ServiceCalls {
  readonly calls: ServiceCall[] = [];
  private readonly script: Required<ServiceScript>;

  constructor(
    script: ServiceScript = {},
    private readonly timeline: string[] = [],
  ) {
    // Copies: answers are taken off as they are given, and the test's lists stay as written.
    const { create = [], message = [], get = [] } = script;
    this.script = { create: [...create], message: [...message], get: [...get] };
  }

  createJob(prompt: string): Promise<AgentJob> {
    this.calls.push(['create', prompt]);
    this.timeline.push('create');
    return this.next('create');
  }

  sendMessage(id: string, prompt: string): Promise<AgentJob> {
    this.calls.push(['message', id, prompt]);
    this.timeline.push(`message ${id}`);
    return this.next('message');
  }

  getJob(id: string): Promise<AgentJob> {
    this.calls.push(['get', id]);
    this.timeline.push(`get ${id}`);
    return this.next('get');
  }

  private next(operation: Operation): Promise<AgentJob> {
    const answer = this.script[operation].shift();
    if (!answer) return Promise.reject(new Error(`the fake service has no ${operation} answer left`));
    return 'id' in answer
      ? Promise.resolve(answer)
      : Promise.reject(new ServiceError(operation, answer.fault));
  }
}

export function fakeService(script: ServiceScript = {}, timeline: string[] = []): FakeService {
  return new FakeService(script, timeline);
}
