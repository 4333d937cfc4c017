import { APICallError, generateText, stepCountIs, streamText } from 'ai';
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { JobFailure } from '../jobs/executor.js';
import type { CheckProblem, TokenUsage } from '../jobs/job-view.js';
import { formatProblems, runChecks } from './checks/run.js';
import { loadText } from './text.js';
import type { ToolContext } from './tools/context.js';

const REPAIR_PROMPT = loadText('./prompts/repair.txt', import.meta.url);

export interface LoopLimits {
  maxSteps: number;
  maxTokens: number;
  /** Wall time for the whole run. */
  timeoutMs: number;
  /** Longest a single model call may take before it counts as hung. */
  modelTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  /** Rounds of "fix these problems" after finish. */
  repairRounds: number;
}

/** One thing that happened, for the transcript. */
export type StepEvent =
  | { kind: 'assistant'; text: string; usage: TokenUsage; step: number }
  | { kind: 'tool'; toolName: string; args: Record<string, unknown>; result: string; step: number }
  | { kind: 'system'; text: string; step: number };

export interface LoopResult {
  finished: { title: string; summary: string } | null;
  /** The model's last text, used as the summary when it did not call finish. */
  lastText: string;
  usage: TokenUsage;
  stoppedBy: 'finish' | 'reply' | 'step_limit' | 'token_limit';
  problems: CheckProblem[] | null;
}

export interface LoopInput {
  model: LanguageModel;
  modelName: string;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  ctx: ToolContext;
  limits: LoopLimits;
  stream: boolean;
  signal: AbortSignal;
  onEvent(e: StepEvent): Promise<void>;
}

const ARG_PREVIEW = 200;

/** Tool arguments for the transcript: long strings (file contents) are cut. */
function summariseArgs(args: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((args ?? {}) as Record<string, unknown>)) {
    out[k] =
      typeof v === 'string' && v.length > ARG_PREVIEW ? `${v.slice(0, ARG_PREVIEW)}… (${v.length} chars)` : v;
  }
  return out;
}

const addUsage = (
  a: TokenUsage,
  u: { inputTokens?: number; outputTokens?: number; totalTokens?: number },
): TokenUsage => {
  const input = u.inputTokens ?? 0;
  const output = u.outputTokens ?? 0;
  return {
    inputTokens: a.inputTokens + input,
    outputTokens: a.outputTokens + output,
    totalTokens: a.totalTokens + (u.totalTokens ?? input + output),
  };
};

/**
 * What the provider said, for the job's error message: the `error.message` of its JSON body, cut
 * short, with anything that looks like a key or token removed (some providers echo part of it).
 */
function providerMessage(body: string | undefined): string | null {
  if (!body) return null;
  let message: unknown;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
  } catch {
    return null;
  }
  if (typeof message !== 'string' || message.trim() === '') return null;
  return message
    .replace(/\b(sk|pk|rk|key|tok|api)[-_][\w-]{4,}/gi, '[redacted]')
    .replace(/\b[A-Za-z0-9_-]{32,}\b/g, '[redacted]')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

function describeModelError(err: unknown): { retry: boolean; reason: string; retryAfterMs?: number } {
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const after = Number(err.responseHeaders?.['retry-after']);
    const said = providerMessage(err.responseBody);
    return {
      retry: err.isRetryable || status === 429 || (status !== undefined && status >= 500),
      reason: status ? `HTTP ${status}${said ? ` (${said})` : ''}` : 'no connection',
      ...(Number.isFinite(after) && after > 0 ? { retryAfterMs: Math.min(after * 1000, 30_000) } : {}),
    };
  }
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError') return { retry: true, reason: 'no answer in time' };
  const code = e?.code ?? e?.cause?.code;
  if (code && /^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|UND_ERR)/.test(code))
    return { retry: true, reason: `connection error (${code})` };
  return { retry: false, reason: (err as Error)?.name ?? 'unknown error' };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/**
 * The agent loop: one model call per step, tools executed by the AI SDK, every step reported.
 * Transient model errors are retried with exponential backoff; after `maxRetries` the run fails
 * with `model_unavailable`. After `finish` the change is checked and problems go back to the model
 * for up to `repairRounds` more rounds.
 */
export async function runAgentLoop(o: LoopInput): Promise<LoopResult> {
  const { limits, ctx } = o;
  const deadline = Date.now() + limits.timeoutMs;
  const messages = [...o.messages];
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let lastFinish: LoopResult['finished'] = null;
  let lastText = '';
  let repairs = 0;

  for (let step = 1; step <= limits.maxSteps; step++) {
    let result: ModelStep;
    try {
      result = await callModel(o, messages, deadline);
    } catch (err) {
      // Tokens spent before a failure still count on the job.
      if (err instanceof JobFailure) err.usage = usage;
      throw err;
    }
    usage = addUsage(usage, result.usage);
    messages.push(...result.messages);
    if (result.text.trim()) lastText = result.text.trim();
    await o.onEvent({ kind: 'assistant', text: result.text, usage: result.usage, step });
    for (const call of result.toolResults) {
      await o.onEvent({
        kind: 'tool',
        toolName: call.toolName,
        args: summariseArgs(call.input),
        result: call.output,
        step,
      });
    }
    if (ctx.finished) {
      lastFinish = ctx.finished;
      ctx.finished = null;
      const problems = await runChecks(ctx);
      if (problems.length === 0 || repairs >= limits.repairRounds) {
        return { finished: lastFinish, lastText, usage, stoppedBy: 'finish', problems };
      }
      repairs++;
      const note = REPAIR_PROMPT.replace('{{problems}}', () => formatProblems(problems));
      messages.push({ role: 'user', content: note });
      await o.onEvent({ kind: 'system', text: note, step });
      continue;
    }
    if (usage.totalTokens >= limits.maxTokens) {
      return { finished: lastFinish, lastText, usage, stoppedBy: 'token_limit', problems: null };
    }
    // Calls that failed (bad arguments, an error) still mean the model is working: go on.
    if (result.toolResults.length === 0 && !result.calledTools) {
      return { finished: lastFinish, lastText, usage, stoppedBy: 'reply', problems: null };
    }
  }
  return { finished: lastFinish, lastText, usage, stoppedBy: 'step_limit', problems: null };
}

interface ModelStep {
  text: string;
  usage: TokenUsage;
  messages: ModelMessage[];
  /** Results and errors of every tool call of the step, errors as `ERROR: …` text. */
  toolResults: { toolName: string; input: unknown; output: string }[];
  calledTools: boolean;
}

type Part = { type: string; toolName?: string; input?: unknown; output?: unknown; error?: unknown };

async function callModel(o: LoopInput, messages: ModelMessage[], deadline: number): Promise<ModelStep> {
  for (let attempt = 0; ; attempt++) {
    if (o.signal.aborted) throw o.signal.reason;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new JobFailure(
        'timeout',
        `The agent ran out of time (${Math.round(o.limits.timeoutMs / 1000)} s) before finishing; nothing was pushed. Send a narrower prompt as a follow-up.`,
      );
    }
    const callSignal = AbortSignal.any([
      o.signal,
      AbortSignal.timeout(Math.min(o.limits.modelTimeoutMs, left)),
    ]);
    try {
      return await oneCall(o, messages, callSignal);
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      if (err instanceof JobFailure) throw err;
      const why = describeModelError(err);
      if (!why.retry || attempt >= o.limits.maxRetries) {
        throw new JobFailure(
          'model_unavailable',
          `The model ${o.modelName} failed: ${why.reason}${why.retry ? ` after ${attempt + 1} attempts` : ''}. ` +
            'Check the provider settings and that the model server is up, then send a follow-up to retry.',
        );
      }
      const backoff = why.retryAfterMs ?? o.limits.retryBaseMs * 2 ** attempt * (0.75 + Math.random() / 2);
      await sleep(Math.min(backoff, 30_000), o.signal);
    }
  }
}

async function oneCall(o: LoopInput, messages: ModelMessage[], signal: AbortSignal): Promise<ModelStep> {
  const common = {
    model: o.model,
    system: o.system,
    messages,
    tools: o.tools,
    stopWhen: stepCountIs(1),
    maxRetries: 0,
    abortSignal: signal,
  };
  if (o.stream) {
    let failure: unknown = null;
    const r = streamText({ ...common, onError: ({ error }) => void (failure = error) });
    await r.consumeStream();
    if (failure) throw failure;
    const [text, usage, response, content, finishReason] = await Promise.all([
      r.text,
      r.usage,
      r.response,
      r.content,
      r.finishReason,
    ]);
    return toStep(text, usage, response.messages, content, finishReason);
  }
  const r = await generateText(common);
  return toStep(r.text, r.usage, r.response.messages, r.content, r.finishReason);
}

function toStep(
  text: string,
  usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number },
  messages: ModelMessage[],
  content: Part[],
  finishReason: string,
): ModelStep {
  const toolResults = content.flatMap((p) =>
    p.type === 'tool-result'
      ? [{ toolName: p.toolName!, input: p.input, output: String(p.output) }]
      : p.type === 'tool-error'
        ? [{ toolName: p.toolName!, input: p.input, output: `ERROR: ${errorText(p.error)}` }]
        : [],
  );
  return {
    text,
    usage: addUsage({ inputTokens: 0, outputTokens: 0, totalTokens: 0 }, usage),
    messages,
    toolResults,
    calledTools: finishReason === 'tool-calls' || content.some((p) => p.type === 'tool-call'),
  };
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 500);
}
