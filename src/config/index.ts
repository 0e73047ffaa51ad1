// Public entry of the config module: import from 'src/config/index.js'.
export { ConfigError, formatIssue, type ConfigIssue } from './errors.js';
export { loadConfig, type LoadedConfig } from './load.js';
export { readDelegationKeytab, readElasticsearchSecrets, readIndexerKeytab, readIndexerPassword } from './secret.js';
export { DEFAULT_INDEXER_PASSWORD_FILE, defaultHttpFronts, type Config } from './schema.js';
