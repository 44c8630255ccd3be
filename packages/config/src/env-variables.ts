/**
 * Every environment variable a Switchboard process reads, in one list: docs/configuration.md's environment
 * table, `.env.example` and `docker-compose.yml` are checked against it, so a variable added here
 * and forgotten there fails a test instead of a deployment.
 */
export const ENV_VARIABLES = [
  'PORT',
  'HOST',
  'API_PROCESSES',
  'REDIS_URL',
  'SWITCHBOARD_CONFIG',
  'SWITCHBOARD_REDIS_PREFIX',
  'SWITCHBOARD_DRAIN_MS',
  'SWITCHBOARD_API_KEYS',
  'SWITCHBOARD_ADMIN_KEYS',
  'LOG_LEVEL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_MODELS',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODELS',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
] as const;

export type EnvVariable = (typeof ENV_VARIABLES)[number];

/** Read by the API alone, for where and how it listens; a worker does not need them. */
export const API_ONLY_VARIABLES: readonly EnvVariable[] = ['PORT', 'HOST', 'API_PROCESSES'];
