// /api/* goes to the control plane unchanged, streamed both ways, so the
// agent needs one base URL. Long-polls pass through; a client that goes
// away cancels the upstream request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import httpProxy from 'http-proxy';
import http from 'node:http';
import type { Logger } from 'pino';
import { AppError } from '@agentwall/shared/errors';
import { sendError } from './respond.js';

export interface ApiForwarder {
  forward(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

export function createApiForwarder(target: string, log: Logger): ApiForwarder {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const proxy = httpProxy.createProxyServer({ target, agent, changeOrigin: true, xfwd: true, ws: false });
  proxy.on('proxyReq', (proxyReq, req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) proxyReq.destroy();
    });
  });
  proxy.on('error', (err, _req, res) => {
    log.warn({ reason: err.message }, 'control plane unreachable for /api forward');
    if ('writeHead' in res) sendError(res, 'api', new AppError('upstream_error', 'The control plane is unreachable.'));
    else res.destroy();
  });
  return {
    forward(req, res) {
      proxy.web(req, res);
    },
    close() {
      proxy.close();
      agent.destroy();
    },
  };
}
