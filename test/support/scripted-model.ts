import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * A scripted model served over the real wire protocols, so the real provider clients run in tests:
 * OpenAI Chat Completions (`POST /v1/chat/completions`, streaming and not) and the Anthropic
 * Messages API (`POST /v1/messages`, streaming and not). Each model call takes the next step of
 * the script; a step may also fail (an HTTP status) or hang.
 */
export interface ToolCallStep {
  name: string;
  args: Record<string, unknown>;
}

export type Reply = { text?: string; toolCalls?: ToolCallStep[] };
export type Step =
  | Reply
  | { status: number; body?: string; headers?: Record<string, string> }
  | { hang: true }
  /** Answers after a pause, as a real model takes time. */
  | { delayMs: number; reply: Reply }
  | ((req: RecordedRequest) => Reply);

export interface RecordedRequest {
  protocol: 'openai' | 'anthropic';
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: {
    model: string;
    stream?: boolean;
    messages: unknown[];
    system?: unknown;
    tools?: { name?: string; function?: { name: string } }[];
  };
  /** The text of the last message (user prompt, tool result or repair note), for branching scripts. */
  lastText: string;
}

export class ScriptedModel {
  readonly requests: RecordedRequest[] = [];
  /** Set when a call arrived after the script ran out: the test wrote too short a script. */
  exhausted = false;
  /** Milliseconds spent answering, summed over calls: the "model time" benchmarks subtract. */
  busyMs = 0;
  #steps: Step[];
  #server: Server;
  #hanging: ServerResponse[] = [];
  url = '';

  constructor(steps: Step[] = []) {
    this.#steps = [...steps];
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
    return this;
  }

  push(...steps: Step[]): void {
    this.#steps.push(...steps);
  }

  get remaining(): number {
    return this.#steps.length;
  }

  async close(): Promise<void> {
    for (const r of this.#hanging) r.destroy();
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    res.on('finish', () => (this.busyMs += performance.now() - started));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const protocol =
      req.url === '/v1/chat/completions' ? 'openai' : req.url === '/v1/messages' ? 'anthropic' : null;
    if (req.method !== 'POST' || protocol === null) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
    const recorded: RecordedRequest = {
      protocol,
      path: req.url!,
      headers: req.headers,
      body,
      lastText: lastText(body.messages),
    };
    this.requests.push(recorded);
    const problem = checkRequest(protocol, body, req.headers);
    if (problem) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: problem } }));
      return;
    }
    const step = this.#steps.shift();
    if (!step) {
      this.exhausted = true;
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"message":"script exhausted"}}');
      return;
    }
    if ('hang' in step) {
      this.#hanging.push(res);
      return;
    }
    if ('status' in step) {
      res
        .writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
        .end(step.body ?? '{"error":{"message":"scripted failure","type":"server_error"}}');
      return;
    }
    if ('delayMs' in step) await new Promise((r) => setTimeout(r, step.delayMs));
    const reply = typeof step === 'function' ? step(recorded) : 'reply' in step ? step.reply : step;
    const n = this.requests.length;
    if (protocol === 'openai') (body.stream ? openaiStream : openaiJson)(res, reply, n, body.model);
    else (body.stream ? anthropicStream : anthropicJson)(res, reply, n, body.model);
  }
}

function lastText(messages: unknown[]): string {
  const last = messages[messages.length - 1] as { content?: unknown } | undefined;
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return JSON.stringify(last.content ?? '');
}

/** The fields each API requires of a request; a client that breaks them gets the API's 400. */
function checkRequest(
  protocol: 'openai' | 'anthropic',
  body: RecordedRequest['body'],
  headers: IncomingMessage['headers'],
): string | null {
  if (typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
    return 'model and messages are required';
  }
  if (protocol === 'anthropic') {
    if (!headers['x-api-key'] || !headers['anthropic-version'])
      return 'x-api-key and anthropic-version headers are required';
    if (typeof (body as { max_tokens?: unknown }).max_tokens !== 'number') return 'max_tokens is required';
    if ((body.messages[0] as { role: string }).role !== 'user')
      return 'the first message must be from the user';
  } else if (body.messages.some((m) => typeof (m as { role?: unknown }).role !== 'string')) {
    return 'every message needs a role';
  }
  return null;
}

const usage = { prompt: 20, completion: 10 };

function openaiToolCalls(reply: Reply, n: number) {
  return (reply.toolCalls ?? []).map((c, i) => ({
    id: `call_${n}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
}

function openaiJson(res: ServerResponse, reply: Reply, n: number, model: string) {
  const calls = openaiToolCalls(reply, n);
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.text ?? null,
            ...(calls.length ? { tool_calls: calls } : {}),
          },
          finish_reason: calls.length ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    }),
  );
}

function openaiStream(res: ServerResponse, reply: Reply, n: number, model: string) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = {
    id: `chatcmpl-${n}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
  send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  if (reply.text) {
    // In two pieces, as a real stream would deliver it.
    const half = Math.ceil(reply.text.length / 2);
    for (const piece of [reply.text.slice(0, half), reply.text.slice(half)]) {
      if (piece) send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    }
  }
  openaiToolCalls(reply, n).forEach((c, index) => {
    const args = c.function.arguments;
    send({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: c.id,
                type: 'function',
                function: { name: c.function.name, arguments: args.slice(0, 5) },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    send({
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: args.slice(5) } }] },
          finish_reason: null,
        },
      ],
    });
  });
  send({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }],
  });
  send({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  });
  res.end('data: [DONE]\n\n');
}

function anthropicContent(reply: Reply, n: number) {
  return [
    ...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
    ...(reply.toolCalls ?? []).map((c, i) => ({
      type: 'tool_use' as const,
      id: `toolu_${n}_${i}`,
      name: c.name,
      input: c.args,
    })),
  ];
}

function anthropicJson(res: ServerResponse, reply: Reply, n: number, model: string) {
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: anthropicContent(reply, n),
      stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
    }),
  );
}

function anthropicStream(res: ServerResponse, reply: Reply, n: number, model: string) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
  send('message_start', {
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.prompt, output_tokens: 1 },
    },
  });
  anthropicContent(reply, n).forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      send('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(0, 3) },
      });
      send('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json.slice(3) },
      });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.completion },
  });
  send('message_stop', {});
  res.end();
}

/** Shorthands for script steps. */
export const call = (name: string, args: Record<string, unknown>): Reply => ({ toolCalls: [{ name, args }] });
export const finish = (title: string, summary: string): Reply => call('finish', { title, summary });
