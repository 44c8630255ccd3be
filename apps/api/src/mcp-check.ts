import type { Settings } from '@switchboard/config';
import { scrubSecrets } from '@switchboard/protocol';
import { McpServers } from '@switchboard/tools';

/**
 * `--check` (`npm run config:check`): connects to each configured MCP server (a stdio server is
 * started and stopped again), and prints what a worker would find, as YAML comments before the
 * summary: each server's tools, or why it is not connected. A server that is down does not make
 * the configuration invalid — a worker starts without it and keeps trying — so it is reported,
 * not an exit code.
 */
export async function checkMcpServers(settings: Settings, print: (line: string) => void): Promise<void> {
  if (Object.keys(settings.config.mcpServers).length === 0) return;
  const secrets = [...settings.secrets].sort((a, b) => b.length - a.length);
  const servers = new McpServers(settings.config.mcpServers, { scrub: (text) => scrubSecrets(text, secrets) });
  try {
    await servers.start();
    print('# MCP servers, connected now:');
    for (const server of servers.states()) {
      const what = server.connected
        ? `connected; tools: ${server.tools.join(', ') || '(none)'}`
        : `not connected: ${server.lastError}`;
      print(`#   ${server.name} (${server.transport}): ${what}`);
    }
  } finally {
    await servers.close();
  }
}
