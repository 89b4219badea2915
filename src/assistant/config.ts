import { ConfigError, type EnvConfig } from '../config/env.ts';

/** The language model server: any OpenAI-compatible API (Ollama, vLLM, llama.cpp server, hosted endpoints). */
export interface LlmConfig {
  /** Ends with /v1, no trailing slash: {baseUrl}/chat/completions, /models, /embeddings. */
  baseUrl: string;
  model: string;
  embeddingModel: string;
  /** Sent as a Bearer token; a secret: never logged nor answered. */
  apiKey: string | null;
}

export interface AssistantConfig {
  llm: LlmConfig;
  /** The main service, which checks the callers' credentials (SVC_ASSISTANT_MAIN_URL). */
  mainUrl: string;
}

export const DEFAULT_LLM_BASE_URL = 'http://127.0.0.1:11434/v1';
export const DEFAULT_LLM_MODEL = 'llama3.1';

type Env = Record<string, string | undefined>;

const present = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

/** An http(s) address without its trailing slashes; null when it is not one. */
function httpUrl(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** The API's base, given with or without its /v1. */
export function llmBaseUrl(value: string): string | null {
  const url = httpUrl(value);
  if (url === null || url.includes('?') || url.includes('#')) return null;
  return /\/v1$/.test(url) ? url : `${url}/v1`;
}

/** The host part of an address to reach a server listening on `address` from this machine (loopback for every address). */
export function reachableHost(address: string): string {
  if (address === '0.0.0.0' || address === '::' || address === '') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

/** Where the main service answers this machine. */
export const localMainUrl = (env: EnvConfig, httpPort: number = env.httpPort): string => `http://${reachableHost(env.listenAddress)}:${httpPort}`;

/** Reads SVC_ASSISTANT_LLM_* and SVC_ASSISTANT_MAIN_URL; names every bad value at once. */
export function readAssistantConfig(values: Env, env: EnvConfig): AssistantConfig {
  const problems: string[] = [];
  const rawBase = present(values, 'SVC_ASSISTANT_LLM_BASE_URL') ?? DEFAULT_LLM_BASE_URL;
  const baseUrl = llmBaseUrl(rawBase);
  if (!baseUrl) problems.push(`SVC_ASSISTANT_LLM_BASE_URL must be an http(s) address such as ${DEFAULT_LLM_BASE_URL}, got "${rawBase}"`);
  const rawMain = present(values, 'SVC_ASSISTANT_MAIN_URL');
  const mainUrl = rawMain === undefined ? localMainUrl(env) : httpUrl(rawMain);
  if (!mainUrl) problems.push(`SVC_ASSISTANT_MAIN_URL must be an http(s) address such as http://127.0.0.1:8013, got "${rawMain}"`);
  if (problems.length) throw new ConfigError(`drover assistant cannot start: ${problems.join('; ')}`);
  const model = present(values, 'SVC_ASSISTANT_LLM_MODEL') ?? DEFAULT_LLM_MODEL;
  return {
    llm: {
      baseUrl: baseUrl!,
      model,
      embeddingModel: present(values, 'SVC_ASSISTANT_EMBEDDING_MODEL') ?? model,
      apiKey: present(values, 'SVC_ASSISTANT_LLM_API_KEY') ?? null,
    },
    mainUrl: mainUrl!,
  };
}
