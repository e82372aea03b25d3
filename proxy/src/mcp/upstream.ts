// Pooled MCP client sessions to registered servers, one per server version.
// The credential is opened (decrypted) only when a session is established,
// and only for servers that are in the bundle, i.e. enabled.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { BundleToolServer } from '@agentwall/shared/bundle';
import { authHeaders, type ToolDefinition } from '@agentwall/shared/mcp';
import { listAllTools, scrubCredentials } from '@agentwall/shared/mcp-client';
import type { SecretOpener } from '../secrets.js';
import { pooledFetch } from './fetch.js';

interface Entry {
  version: string;
  client: Promise<Client>;
  tools: ToolDefinition[] | undefined;
  secrets: string[];
}

export interface UpstreamPool {
  /** Fresh listing from the server (updates the cache). */
  listTools(server: BundleToolServer, timeoutMs: number): Promise<ToolDefinition[]>;
  /** Cached listing, fetched once if missing. */
  cachedTools(server: BundleToolServer, timeoutMs: number): Promise<ToolDefinition[]>;
  callTool(server: BundleToolServer, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult>;
  /** Drops sessions of servers no longer in the bundle or whose version moved. */
  retain(servers: readonly BundleToolServer[]): void;
  /** Removes credential values from text bound for the agent. */
  scrub(server: BundleToolServer, text: string): string;
  close(): Promise<void>;
}

export function createUpstreamPool(opts: { secrets: SecretOpener; log: Logger; onToolsChanged: (serverName: string) => void }): UpstreamPool {
  const entries = new Map<number, Entry>();

  function connect(server: BundleToolServer, entry: Entry): Promise<Client> {
    return (async () => {
      const auth = server.credential ? (JSON.parse(await opts.secrets.open(server.credential)) as Record<string, string>) : {};
      entry.secrets = Object.values(auth).filter((v) => v.length >= 4);
      const headers = authHeaders(server.auth_mode, auth);
      const url = new URL(server.endpoint);
      const make = () => {
        const c = new Client({ name: 'agentwall-gateway', version: '0.1.0' });
        c.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
          entry.tools = undefined;
          opts.onToolsChanged(server.name);
        });
        c.onclose = () => {
          // A closed session is re-established on the next call.
          if (entries.get(server.id) === entry) entries.delete(server.id);
        };
        return c;
      };
      const client = make();
      try {
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: pooledFetch }), { timeout: 10_000 });
        return client;
      } catch (err) {
        const status = (err as { code?: unknown }).code;
        if (status !== 404 && status !== 405) throw err;
      }
      const legacy = make();
      await legacy.connect(new SSEClientTransport(url, { requestInit: { headers } }), { timeout: 10_000 });
      return legacy;
    })();
  }

  function entryFor(server: BundleToolServer): Entry {
    let e = entries.get(server.id);
    if (e && e.version !== server.version) {
      void e.client.then((c) => c.close()).catch(() => {});
      e = undefined;
    }
    if (!e) {
      const created: Entry = { version: server.version, client: Promise.resolve(undefined as unknown as Client), tools: undefined, secrets: [] };
      created.client = connect(server, created);
      created.client.catch(() => {
        if (entries.get(server.id) === created) entries.delete(server.id);
      });
      entries.set(server.id, created);
      e = created;
    }
    return e;
  }

  async function listTools(server: BundleToolServer, timeoutMs: number): Promise<ToolDefinition[]> {
    const e = entryFor(server);
    const tools = await listAllTools(await e.client, timeoutMs);
    e.tools = tools;
    return tools;
  }

  return {
    listTools,
    async cachedTools(server, timeoutMs) {
      const e = entryFor(server);
      return e.tools ?? listTools(server, timeoutMs);
    },
    async callTool(server, tool, args, timeoutMs) {
      const client = await entryFor(server).client;
      return (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs })) as CallToolResult;
    },
    retain(servers) {
      const keep = new Map(servers.map((s) => [s.id, s.version]));
      for (const [id, e] of entries) {
        if (keep.get(id) !== e.version) {
          entries.delete(id);
          void e.client.then((c) => c.close()).catch(() => {});
        }
      }
    },
    scrub(server, text) {
      return scrubCredentials(text, entries.get(server.id)?.secrets ?? [], 2000);
    },
    async close() {
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map((e) => e.client.then((c) => c.close()).catch(() => {})));
    },
  };
}
