// Reading the benches' knobs from the environment, and the environment the built apps get.

/**
 * A non-negative (or, with `positive`, strictly positive) number from the environment; a value
 * that is not one is reported and replaced by `fallback`, so a typo cannot silently change a run.
 */
/** `json-32,sse-8` (a command's argument, else `fallback`) as scenarios: `{ id, stream, connections }` each. */
export function scenariosFromArg(arg, fallback) {
  return (arg ?? fallback).split(',').map((id) => {
    const [kind, connections] = id.split('-');
    return { id, stream: kind === 'sse', connections: Number(connections) };
  });
}

export function numberFromEnv(name, fallback, { positive = false, integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (positive && value === 0) || (integer && !Number.isInteger(value))) {
    const kind = `${positive ? 'positive' : 'non-negative'} ${integer ? 'integer' : 'number'}`;
    console.error(`bench: ${name}='${raw}' is not a ${kind}; using ${fallback}`);
    return fallback;
  }
  return value;
}

/** Extra node arguments from the environment, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
export function nodeArgsFromEnv(name) {
  return (process.env[name] || '').split(/\s+/).filter(Boolean);
}

/**
 * The environment of a built Switchboard app (API or worker): it sees only the bench's config
 * and Redis; env shortcuts (OPENAI_API_KEY…) and the caller's SWITCHBOARD_* settings are dropped.
 * @param {{ port?: number, configPath: string, redisUrl: string, prefix: string, logLevel: string }} options
 */
export function switchboardEnv({ port, configPath, redisUrl, prefix, logLevel }) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC|SWITCHBOARD)_/.test(key) && key !== 'LOG_LEVEL'),
  );
  return {
    ...clean,
    ...(port === undefined ? {} : { PORT: String(port) }),
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    SWITCHBOARD_CONFIG: configPath,
    SWITCHBOARD_REDIS_PREFIX: prefix,
    SWITCHBOARD_DRAIN_MS: '1000',
    LOG_LEVEL: logLevel,
  };
}

/**
 * The Switchboard config of the gateway benches: one OpenAI-compatible provider `bench` (model
 * `gpt-4o-mini`) at the stand-in upstream, `bench/gpt-4o-mini` the default; `extra` merged on top.
 */
export function benchConfig(upstreamPort, { apiKey, maxConnections, extra = {} }) {
  return {
    defaultModel: 'bench/gpt-4o-mini',
    providers: {
      bench: {
        type: 'openai',
        baseUrl: `http://127.0.0.1:${upstreamPort}/v1`,
        apiKey,
        models: ['gpt-4o-mini'],
        ...(maxConnections ? { maxConnections } : {}),
      },
    },
    ...extra,
  };
}
