// Every run on a thread that may reach the service carries every `/docs` request the thread's
// ledger still owes: one send for a burst of them, whatever run sends it (a push, the merge, a
// request, a run by hand). Read after what the thread remembers (its note holds the ledger),
// before which way the run goes: a run whose own request an earlier run sent sends nothing, and a
// run its policy would hold back still sends when requests wait.
import type { Skip } from './admission.js';
import type { RunEvent } from '../core/event.js';
import type { Features } from './features.js';
import { gateActor, hasWriteAccess } from './gate.js';
import type { Inputs } from './inputs.js';
import { docsLedger, requestLedger } from '../core/ledger.js';
import type { Log } from '../core/log.js';
import type { Access, Carried, DecideReads, Memory } from '../core/ports.js';
import type { DocsAsks } from '../core/sweep-ports.js';
import {
  carriedAnswer,
  carriedNotice,
  carry,
  readQueue,
  requestsPrompt,
  type QueuedRequest,
} from './requests.js';
import type { Request } from './trigger.js';
import { label } from '../core/untrusted.js';

export interface QueuedDeps {
  event: RunEvent;
  request: Request;
  features: Features;
  port: DecideReads | undefined;
  log: Log;
  signal: AbortSignal;
  run: { runId: number; actor: string };
  /** A lane run's: the requests on the thread's docs pull request, read there (its note names the thread). */
  onDocs?: DocsAsks;
}

/**
 * The run goes on (carrying the requests in `memory.carried`, with `prompt` when it carries
 * others than its own; `owed`: requests besides its own wait to be sent), or ends skipped.
 */
export type Queued = Skip | { kind: 'go'; memory: Memory; prompt?: string; owed?: true };

/**
 * On a thread with a trigger phrase, reads the thread's comments: a request run whose own request
 * an earlier run sent is a skip that says which run; else the run carries its own request (if a
 * request started it) and every request the ledger owes whose author may ask (checked as each
 * would be on its own). Anything else goes on as it was.
 */
export async function gatherQueued(inputs: Inputs, memory: Memory, deps: QueuedDeps): Promise<Queued> {
  const { request, features, port, event, log, signal } = deps;
  if (!features.thread || !port || inputs.trigger === undefined) return { kind: 'go', memory };
  const before = memory.note ? requestLedger(memory.note) : undefined;
  const { comments, complete, readTo, runsUrl, keptId } = await port.threadComments(signal, before?.floor);
  const ledger = requestLedger(memory.note, keptId);
  let own: QueuedRequest | undefined;
  if (request.kind === 'request') {
    const { id, review } = request.comment;
    const facts = comments.find((c) => c.id === id) ?? {
      id,
      body: '',
      author: event.sender?.login ?? deps.run.actor,
      bot: false,
      url: '',
      review,
    };
    own = { ...facts, text: request.text };
  }
  const queue = readQueue(own, comments, {
    phrase: inputs.trigger,
    standing: Boolean(inputs.prompt),
    ledger,
    runId: deps.run.runId,
  });
  if (queue.kind === 'carried')
    return { kind: 'skip', notice: carriedNotice(queue.run), answer: carriedAnswer(queue.run, runsUrl) };
  const access = (actor: string) => port.accessOf(actor, signal);
  const {
    kept: others,
    refused,
    owed,
    leftFrom,
  } = await mayAsk(queue.owed, own?.author, inputs, deps, access);
  // Every comment above the floor was read: the floor may rise up to the newest (on a thread past
  // the bounds of one run, up to where the stretch read from the floor ends).
  const newest = Math.max(ledger.floor, ...comments.filter((c) => !c.review).map((c) => c.id));
  const upTo = complete ? newest : readTo;
  const { carried, prompt } = carry(
    own,
    others,
    { ledger, refused, owed, ...(upTo !== undefined ? { readUpTo: upTo } : {}) },
    inputs.prompt,
  );
  if (leftFrom !== undefined)
    log.warning(
      `Not every request queued on the thread goes in this send (at most ${MAX_CARRIED}, ${MAX_LOOK_UPS} look-ups of who may ask): those from comment ${leftFrom} on wait for the next run.`,
    );
  if (!complete)
    log.warning(
      readTo !== undefined
        ? `The thread has more comments than one run reads (${COMMENT_PAGES_READ}): this run read those from the last one settled up to comment ${readTo}, and the newest; requests among those in between wait for the next run, which reads on from there.`
        : `The thread has more comments than one run reads (${COMMENT_PAGES_READ}): requests among those left unread wait, unsettled.`,
    );
  if (others.length > 0)
    log.info(
      `${others.length + (own ? 1 : 0)} requests on the thread are not yet delivered (comments ${carried.requests.map((r) => r.id).join(', ')}): they go in this run's one send.`,
    );
  // What was asked on the docs PR: a lane run's, read there; or, on any other run of the thread,
  // what its record owes there (asked while the job worked), so no send of the thread drops it.
  const owedThere = deps.onDocs ? undefined : memory.note?.waiting?.docs;
  const asks = deps.onDocs ?? (owedThere ? await port.docsAsks(owedThere, signal) : undefined);
  const docs = asks
    ? await docsRequests(asks, memory, { ...inputs, trigger: inputs.trigger }, deps)
    : undefined;
  const asked = docs?.kept ?? [];
  if (asked.length > 0)
    log.info(
      `${asked.length} request${asked.length === 1 ? '' : 's'} asked on the docs pull request ${docs?.carried.key ?? ''} go in this run's one send.`,
    );
  // Requests on the docs PR go with the thread's own in one prompt, each with its link.
  const all = [...(own ? [own] : []), ...others, ...asked].sort((a, b) => a.id - b.id);
  const place =
    asked.length === all.length
      ? 'the docs pull request of this thread'
      : 'this thread and its docs pull request';
  const sent = asked.length > 0 ? requestsPrompt(inputs.prompt, all, place) : prompt;
  return {
    kind: 'go',
    memory: { ...memory, carried: docs ? { ...carried, docs: docs.carried } : carried },
    ...(sent !== undefined ? { prompt: sent } : {}),
    ...(others.length + asked.length > 0 ? { owed: true as const } : {}),
  };
}

/** How many comments one run reads at most, in words. */
const COMMENT_PAGES_READ = 'at most 2,000';

/** GitHub could not tell whether the author may ask (a warning said so). */
const UNTOLD = 'untold';

/** The most requests one send carries besides the run's own, oldest first. */
export const MAX_CARRIED = 30;
/** The most authors asked of GitHub in one run: each look-up may take its own while. */
const MAX_LOOK_UPS = 30;

/**
 * The requests whose authors may ask, by the gate's rules for an event anyone can cause: named in
 * `allowedActors`, a bot only when named, else write access asked of GitHub once a login. Those
 * refused are settled as such; one whose author GitHub could not tell about waits, and the others
 * go on. Bounded: past `MAX_CARRIED` requests or `MAX_LOOK_UPS` look-ups, the rest wait
 * (`leftFrom`: the first).
 */
async function mayAsk(
  queued: QueuedRequest[],
  asker: string | undefined,
  inputs: Inputs,
  deps: QueuedDeps,
  accessOf: (actor: string) => Promise<Access | undefined>,
  where = 'the thread',
): Promise<{ kept: QueuedRequest[]; refused: number[]; owed: number[]; leftFrom?: number }> {
  const { event, log } = deps;
  // The run's own author passed the gate already.
  const known = new Map<string, Promise<string | undefined>>(
    asker ? [[asker.toLowerCase(), Promise.resolve(undefined)]] : [],
  );
  const refusal = (r: QueuedRequest): Promise<string | undefined> => {
    const decided = gateActor({ login: r.author, type: r.bot ? 'Bot' : 'User' }, event, inputs.allowedActors);
    if (decided.kind === 'refused') return Promise.resolve(decided.rule);
    if (decided.kind !== 'ask') return Promise.resolve(undefined);
    return (async () => {
      const access = await accessOf(r.author);
      if (access === undefined) return UNTOLD;
      return hasWriteAccess(access) ? undefined : `their role on the repository is ${label(access.role)}`;
    })();
  };
  const kept: QueuedRequest[] = [];
  const refused: number[] = [];
  const owed: number[] = [];
  for (const [at, r] of queued.entries()) {
    const key = r.author.toLowerCase();
    const asked = !known.has(key);
    if (kept.length >= MAX_CARRIED || (asked && known.size > MAX_LOOK_UPS)) {
      owed.push(...queued.slice(at).map((q) => q.id));
      return { kept, refused, owed, leftFrom: r.id };
    }
    if (asked) known.set(key, refusal(r));
    const why = await known.get(key);
    // Not refused, not allowed: it waits, unsettled, for a run GitHub answers; the others go on.
    if (why === UNTOLD) owed.push(r.id);
    else if (why === undefined) kept.push(r);
    else {
      refused.push(r.id);
      if (asked) log.info(`Not sent: the requests of ${label(r.author)} on ${where}, as ${why}.`);
    }
  }
  return { kept, refused, owed };
}

/**
 * The requests asked on the thread's docs pull request that a lane run carries: those its own
 * ledger still owes (from the docs PR's note on, where it keeps none yet), whose authors may ask,
 * judged on the docs PR's repository as a request there is (`allowedActors`, else write access).
 */
async function docsRequests(
  asks: DocsAsks,
  memory: Memory,
  inputs: Inputs & { trigger: string },
  deps: QueuedDeps,
): Promise<{ kept: QueuedRequest[]; carried: NonNullable<Carried['docs']> } | undefined> {
  const { port, signal, run, log } = deps;
  const ledger = docsLedger(memory.note, asks.key, asks.noteId);
  // Only the thread's job now is sent what was asked on its docs PR: an earlier job's docs PR
  // (superseded, left open) names the thread too, and its requests are not this job's.
  if (memory.note?.job !== asks.job) {
    log.warning(
      `What was asked on ${asks.key} is not sent: that docs pull request is agent job ${label(asks.job)}'s, not the thread's job now${memory.note ? ` (${label(memory.note.job)})` : ''}.`,
    );
    return undefined;
  }
  const queue = readQueue(undefined, asks.comments, {
    phrase: inputs.trigger,
    standing: Boolean(inputs.prompt),
    ledger,
    runId: run.runId,
  });
  const owedNow = queue.kind === 'open' ? queue.owed : [];
  const judged = await mayAsk(
    owedNow,
    undefined,
    inputs,
    deps,
    async (actor) => port?.accessOn(asks.link, actor, signal),
    `the docs pull request ${asks.key}`,
  );
  const newest = Math.max(ledger.floor, ...asks.comments.map((c) => c.id));
  const kept = judged.kept.map((r) => ({ ...r, review: false }));
  return {
    kept,
    carried: {
      link: asks.link,
      key: asks.key,
      ledger,
      sent: kept.map((r) => r.id),
      refused: judged.refused,
      owed: judged.owed,
      ...(asks.complete ? { readUpTo: newest } : {}),
      requests: kept.map(({ id, author, url }) => ({ id, author, url, review: false })),
    },
  };
}
