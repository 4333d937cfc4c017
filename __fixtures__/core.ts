import { jest } from '@jest/globals';
import type * as core from '@actions/core';

// Typed stand-ins for the parts of @actions/core that run() uses, registered with
// jest.unstable_mockModule before src/main.ts is imported (as in actions/typescript-action).
export const getInput = jest.fn<typeof core.getInput>();
export const setSecret = jest.fn<typeof core.setSecret>();
export const setOutput = jest.fn<typeof core.setOutput>();
export const setFailed = jest.fn<typeof core.setFailed>();
export const info = jest.fn<typeof core.info>();
export const notice = jest.fn<typeof core.notice>();
export const warning = jest.fn<typeof core.warning>();
export const debug = jest.fn<typeof core.debug>();
export const isDebug = jest.fn<typeof core.isDebug>(() => false);
export const summary = {
  addHeading: jest.fn().mockReturnThis(),
  addTable: jest.fn().mockReturnThis(),
  addRaw: jest.fn().mockReturnThis(),
  write: jest.fn(async () => undefined),
};
