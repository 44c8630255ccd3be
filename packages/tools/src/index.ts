export type { McpServerState } from '@switchboard/protocol';
export * from './mcp-servers.js';
export * from './offered-tools.js';
export * from './tool-arguments.js';
export * from './tool-output.js';
