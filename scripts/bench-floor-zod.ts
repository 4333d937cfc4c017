// The start-up floor of all the card's packages on the plain path: the floor of bench-floor.ts
// (@actions/core, which brings all of undici, and a create request with undici) plus zod, as the
// action loads it (`zod/mini`), validating the same number of string inputs before the request.
// `npm run bench` sets the action beside it: what is left is the action's own code.
import * as core from '@actions/core';
import { request } from 'undici';
import * as z from 'zod/mini';

const NAMES = [
  'prompt',
  'projectId',
  'apiKey',
  'baseUrl',
  'wait',
  'timeout',
  'pollInterval',
  'jobId',
  'comment',
  'labels',
  'reviewers',
  'context',
  'contextLimit',
  'trigger',
  'allowedActors',
  'thread',
  'status',
];
// One checked, transformed string a name, as the action's rules are.
const field = () =>
  z.pipe(
    z.string(),
    z.transform((text: string, ctx) => {
      if (text.length > 100_000) ctx.issues.push({ code: 'custom', message: 'too long', input: text });
      return text.trim();
    }),
  );
const schema = z.object(Object.fromEntries(NAMES.map((name) => [name, field()])));
const inputs = schema.parse(Object.fromEntries(NAMES.map((name) => [name, core.getInput(name)])));

const response = await request(
  `${inputs.baseUrl}/v2/agent/${encodeURIComponent(inputs.projectId ?? '')}/job`,
  {
    method: 'POST',
    headers: {
      authorization: `Bearer ${inputs.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({ prompt: inputs.prompt }),
  },
);
await response.body.text();
