// The start-up floor that the design card sets: a bundle that loads @actions/core (which brings
// @actions/http-client and, with it, all of undici) and sends the create request with undici,
// doing nothing else. `npm run bench` compares the action with it and with a bare Node process.
import * as core from '@actions/core';
import { request } from 'undici';

const base = core.getInput('baseUrl');
const response = await request(`${base}/v2/agent/${encodeURIComponent(core.getInput('projectId'))}/job`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${core.getInput('apiKey')}`,
    'content-type': 'application/json',
    accept: 'application/json',
  },
  body: JSON.stringify({ prompt: core.getInput('prompt') }),
});
await response.body.text();
