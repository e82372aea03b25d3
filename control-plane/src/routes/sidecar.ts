import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { gatewayWorkspace } from './util.js';
import { SIDECAR_KEY_HEADER } from '@agentwall/shared/bundle';
import { bundleEtag, parseSidecarKey, prepareBundle, signBundle } from '../services/bundle.js';
import { currentRevision } from '../db/queries/workspaces.js';

const ConfigQuery = z.object({ wait: z.coerce.number().int().min(0).max(60).optional() });


export const sidecarRoutes: RouteDef[] = [
  route({
    method: 'get', path: '/api/v1/sidecar/config', tag: 'sidecar',
    summary: 'The workspace\'s signed config bundle (JWS, EdDSA). With If-None-Match and ?wait=N (≤ 60 s) it long-polls until the revision moves; 304 when unchanged.',
    auth: 'gateway', query: ConfigQuery,
    response: { status: 200, description: 'Compact JWS of the bundle', contentType: 'application/jose' },
    handler: async ({ ctx, deps, principal, query }) => {
      const ws = gatewayWorkspace(principal);
      const sidecarKey = await parseSidecarKey(ctx.get(SIDECAR_KEY_HEADER) || undefined);
      const known = ctx.get('if-none-match');
      let revision = await currentRevision(deps.pool, ws);
      if (revision !== undefined && known === bundleEtag(ws, revision) && (query.wait ?? 0) > 0) {
        const abort = new AbortController();
        ctx.req.once('close', () => abort.abort());
        deps.metrics.longPolls.inc();
        try {
          revision = (await deps.revisions.waitForChange(ws, revision, (query.wait ?? 0) * 1000, abort.signal)) ?? revision;
        } finally {
          deps.metrics.longPolls.dec();
        }
      }
      const prepared = await prepareBundle(deps, ws);
      const etag = bundleEtag(ws, prepared.revision);
      if (known === etag) return { status: 304, headers: { etag } as Record<string, string> };
      const jws = await signBundle(deps, prepared, sidecarKey);
      return { status: 200, headers: { etag, 'content-type': 'application/jose', 'cache-control': 'no-store' }, body: jws };
    },
  }),
  route({
    method: 'get', path: '/api/v1/sidecar/jwks', tag: 'sidecar', summary: 'Public key set that verifies config bundles.',
    auth: 'none',
    handler: async ({ deps }) => ({ body: { keys: [deps.keys.publicJwk] }, headers: { 'cache-control': 'max-age=300' } }),
  }),
];
