import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ProviderSettings } from '../config.js';
import { RedlineError } from '../errors.js';

export const PROVIDERS = ['openai', 'anthropic', 'openai-compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface ModelRef {
  provider: Provider;
  model: string;
}

export function parseModelName(name: string): ModelRef | null {
  const i = name.indexOf(':');
  if (i <= 0 || i === name.length - 1) return null;
  const provider = name.slice(0, i);
  if (!(PROVIDERS as readonly string[]).includes(provider)) return null;
  return { provider: provider as Provider, model: name.slice(i + 1) };
}

/** Why this model cannot run on this server, or null when it can. Names settings, never values. */
export function whyModelCannotRun(name: string, providers: ProviderSettings): string | null {
  const ref = parseModelName(name);
  if (ref === null) {
    return `Model "${name}" has an unknown provider; use one of ${PROVIDERS.join(', ')} (as provider:model).`;
  }
  switch (ref.provider) {
    case 'openai':
      return providers.openaiApiKey
        ? null
        : `Model "${name}" needs OPENAI_API_KEY, which is not set on the server.`;
    case 'anthropic':
      return providers.anthropicApiKey
        ? null
        : `Model "${name}" needs ANTHROPIC_API_KEY, which is not set on the server.`;
    case 'openai-compatible':
      return providers.openaiCompatibleUrl
        ? null
        : `Model "${name}" needs REDLINE_OPENAI_COMPATIBLE_URL, which is not set on the server.`;
  }
}

export interface ModelChoice {
  requested: string | undefined;
  projectModel: string | null;
  projectAllowedModels: string[];
  instanceDefault: string | null;
}

/**
 * The `provider:model` a new job runs with: the one asked for if the project allows it, else the
 * project's default, else the instance default. Throws `model_not_configured` when that model
 * cannot run here, so a job that could never start is refused at creation.
 */
export function resolveJobModel(choice: ModelChoice, providers: ProviderSettings): string {
  const fallback = choice.projectModel ?? choice.instanceDefault;
  let model: string;
  if (choice.requested !== undefined) {
    const allowed = new Set([...(fallback ? [fallback] : []), ...choice.projectAllowedModels]);
    if (!allowed.has(choice.requested)) {
      const list = [...allowed];
      throw new RedlineError(
        'model_not_configured',
        `Model "${choice.requested}" is not allowed for this project. ${
          list.length ? `Allowed: ${list.join(', ')}.` : 'The project allows no model besides the default.'
        }`,
        { field: 'model' },
      );
    }
    model = choice.requested;
  } else if (fallback === null) {
    throw new RedlineError(
      'model_not_configured',
      'No model is configured: set REDLINE_MODEL on the server or a model on the project.',
    );
  } else {
    model = fallback;
  }
  const why = whyModelCannotRun(model, providers);
  if (why !== null) throw new RedlineError('model_not_configured', why, { model });
  return model;
}

/**
 * The AI SDK model for a `provider:model` name. OpenAI is spoken through Chat Completions, the
 * protocol every OpenAI-compatible gateway implements too.
 */
export function createLanguageModel(name: string, providers: ProviderSettings): LanguageModel {
  const why = whyModelCannotRun(name, providers);
  if (why !== null) throw new RedlineError('model_not_configured', why);
  const ref = parseModelName(name)!;
  switch (ref.provider) {
    case 'openai':
      return createOpenAI({
        apiKey: providers.openaiApiKey!,
        ...(providers.openaiBaseUrl ? { baseURL: providers.openaiBaseUrl } : {}),
      }).chat(ref.model);
    case 'anthropic':
      return createAnthropic({
        apiKey: providers.anthropicApiKey!,
        ...(providers.anthropicBaseUrl ? { baseURL: providers.anthropicBaseUrl } : {}),
      })(ref.model);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: providers.openaiCompatibleUrl!,
        ...(providers.openaiCompatibleApiKey ? { apiKey: providers.openaiCompatibleApiKey } : {}),
        includeUsage: true,
      })(ref.model);
  }
}
