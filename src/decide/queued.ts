// A `/docs` request on a thread carries every request queued there that was not yet delivered:
// one send for a burst of them. Read after what the thread remembers (its note says what was
// delivered), before which way the run goes: a run whose request an earlier run carried sends
// nothing.
import type { Skip } from './admission.js';
import type { RunEvent } from '../core/event.js';
import type { Features } from './features.js';
import { gateActor, hasWriteAccess } from './gate.js';
import type { Inputs } from './inputs.js';
import type { Log } from '../core/log.js';
import type { DecideReads, Memory } from '../core/ports.js';
import { carriedAnswer, carriedNotice, carry, readQueue, type QueuedRequest } from './requests.js';
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
}

/** The run goes on (carrying the requests in `memory.carried`, with `prompt` when there are several), or ends skipped. */
export type Queued = Skip | { kind: 'go'; memory: Memory; prompt?: string };

/**
 * On a thread, a `/docs` request run reads the thread's comments: its own request already
 * delivered is a skip that says which run carried it; else it carries its own and every request
 * not yet delivered whose author may ask (checked as each would be on its own). Anything else goes
 * on as it was.
 */
export async function gatherQueued(inputs: Inputs, memory: Memory, deps: QueuedDeps): Promise<Queued> {
  const { request, features, port, event, log, signal } = deps;
  if (request.kind !== 'request' || !features.thread || !port || inputs.trigger === undefined)
    return { kind: 'go', memory };
  const { comments, runsUrl, keptId } = await port.threadComments(signal);
  const { id, review } = request.comment;
  const facts = comments.find((c) => c.id === id) ?? {
    id,
    body: '',
    author: event.sender?.login ?? deps.run.actor,
    bot: false,
    url: '',
    review,
  };
  const own: QueuedRequest = { ...facts, text: request.text };
  const queue = readQueue(own, comments, {
    phrase: inputs.trigger,
    standing: Boolean(inputs.prompt),
    note: memory.note,
    runId: deps.run.runId,
    ...(keptId !== undefined ? { keptId } : {}),
  });
  if (queue.kind === 'carried')
    return { kind: 'skip', notice: carriedNotice(queue.run), answer: carriedAnswer(queue.run, runsUrl) };
  const { kept: others, leftFrom } = await mayAsk(queue.waiting, own.author, inputs, deps);
  const { carried, prompt } = carry(own, others, queue.after, inputs.prompt, leftFrom);
  if (leftFrom !== undefined)
    log.warning(
      `Not every request queued on the thread goes in this send (at most ${MAX_CARRIED}, ${MAX_LOOK_UPS} look-ups of who may ask, and only authors GitHub could tell about): those from comment ${leftFrom} on wait for the next request.`,
    );
  if (others.length > 0)
    log.info(
      `${others.length + 1} requests on the thread are not yet delivered (comments ${carried.requests.map((r) => r.id).join(', ')}): they go in this run's one send.`,
    );
  return { kind: 'go', memory: { ...memory, carried }, ...(prompt !== undefined ? { prompt } : {}) };
}

/** GitHub could not tell whether the author may ask (a warning said so). */
const UNTOLD = 'untold';

/** The most requests one send carries besides the run's own, oldest first. */
export const MAX_CARRIED = 30;
/** The most authors asked of GitHub in one run: each look-up may take its own while. */
const MAX_LOOK_UPS = 30;

/**
 * The requests whose authors may ask, by the gate's rules for an event anyone can cause: named in
 * `allowedActors`, a bot only when named, else write access asked of GitHub once a login. Bounded:
 * past `MAX_CARRIED` requests or `MAX_LOOK_UPS` look-ups, the rest wait (`leftFrom`: the first).
 */
async function mayAsk(
  waiting: QueuedRequest[],
  asker: string,
  inputs: Inputs,
  deps: QueuedDeps,
): Promise<{ kept: QueuedRequest[]; leftFrom?: number }> {
  const { event, port, log, signal } = deps;
  // The run's own author passed the gate already.
  const known = new Map<string, Promise<string | undefined>>([
    [asker.toLowerCase(), Promise.resolve(undefined)],
  ]);
  const refusal = (r: QueuedRequest): Promise<string | undefined> => {
    const decided = gateActor({ login: r.author, type: r.bot ? 'Bot' : 'User' }, event, inputs.allowedActors);
    if (decided.kind === 'refused') return Promise.resolve(decided.rule);
    if (decided.kind !== 'ask') return Promise.resolve(undefined);
    return (async () => {
      const access = await port?.accessOf(r.author, signal);
      if (access === undefined) return UNTOLD;
      return hasWriteAccess(access) ? undefined : `their role on the repository is ${label(access.role)}`;
    })();
  };
  const kept: QueuedRequest[] = [];
  for (const r of waiting) {
    const key = r.author.toLowerCase();
    const asked = !known.has(key);
    if (kept.length >= MAX_CARRIED || (asked && known.size > MAX_LOOK_UPS)) return { kept, leftFrom: r.id };
    if (asked) known.set(key, refusal(r));
    const why = await known.get(key);
    // Not refused, not allowed: it waits, undelivered, for a run GitHub answers.
    if (why === UNTOLD) return { kept, leftFrom: r.id };
    if (why === undefined) kept.push(r);
    else if (asked) log.info(`Not sent: the requests of ${label(r.author)} on the thread, as ${why}.`);
  }
  return { kept };
}
