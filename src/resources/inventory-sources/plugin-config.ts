import YAML from 'yaml';
import { CLOUD_KINDS } from './source-kinds.ts';

export interface PluginConfig {
  /** File name the plugin requires (aws_ec2.yml...). */
  fileName: string;
  config: Record<string, unknown>;
  /** The configuration as written to the file. */
  text: string;
}

/**
 * The inventory plugin configuration of a cloud source, as AWX generates it: the source's
 * variables over AWX's defaults for the kind, and `plugin` naming the kind's plugin whatever the
 * variables say. `injectedEnv` is the credential's environment, which some defaults come from.
 */
export function pluginConfig(source: string, sourceVars: Record<string, unknown>, injectedEnv: Record<string, string>): PluginConfig {
  const kind = CLOUD_KINDS[source];
  if (!kind) throw new Error(`${source} is not a cloud inventory source`);
  const defaults: Record<string, unknown> = {};
  // The GCE plugin needs the projects to list; the credential's project unless the source names them.
  if (source === 'gce' && injectedEnv.GCP_PROJECT) defaults.projects = [injectedEnv.GCP_PROJECT];
  // The terraform plugin reads the backend configuration the credential holds.
  if (source === 'terraform' && injectedEnv.TF_BACKEND_CONFIG_FILE) defaults.backend_config_files = injectedEnv.TF_BACKEND_CONFIG_FILE;
  const config = { ...defaults, ...sourceVars, plugin: kind.plugin };
  return { fileName: kind.fileName, config, text: YAML.stringify(config, { lineWidth: 0 }) };
}

/**
 * Environment for a cloud source beyond its credential's injectors: what AWX's inventory injectors
 * add (Satellite's FOREMAN_* from the credential's inputs, native Jinja types for some plugins).
 */
export function pluginEnv(source: string, inputs: Record<string, unknown> | null): Record<string, string> {
  const kind = CLOUD_KINDS[source];
  const env: Record<string, string> = { ...kind?.env };
  if (source === 'satellite6' && inputs) {
    const str = (id: string) => (inputs[id] === undefined || inputs[id] === null ? '' : String(inputs[id]));
    Object.assign(env, { FOREMAN_SERVER: str('host'), FOREMAN_USER: str('username'), FOREMAN_PASSWORD: str('password') });
  }
  return env;
}
