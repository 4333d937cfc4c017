import { expect } from '@jest/globals';
import { InputError, readInputs } from '../src/decide/inputs.js';

/** Valid inputs but for the prompt, which `promptFile` gives. */
const INPUTS: Record<string, string> = {
  prompt: '',
  projectId: 'proj_1',
  apiKey: 'mint_0123456789abcdef',
  baseUrl: 'https://api.example.com',
  wait: 'true',
  timeout: '30m',
  pollInterval: '10s',
};

/** The prompt read from `promptFile`, with `workspace` as GITHUB_WORKSPACE. */
export function promptFrom(promptFile: string, workspace: string): string | undefined {
  return readInputs((name) => (name === 'promptFile' ? promptFile : (INPUTS[name] ?? '')), workspace, {})
    .prompt;
}

/** The message of the bad input `promptFile` is in `workspace` (the test fails if it is read). */
export function refusal(promptFile: string, workspace: string): string {
  let thrown: unknown;
  try {
    promptFrom(promptFile, workspace);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InputError);
  return thrown instanceof InputError ? thrown.message : '';
}
