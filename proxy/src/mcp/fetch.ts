// A fetch for the pooled upstream MCP sessions, on undici's keep-alive
// dispatcher instead of the global fetch: measured at about half the cost
// per call on loopback, and it attaches to the transport's long-lived abort
// signal only while a request is in flight (the global fetch leaves one
// listener per request on it until garbage collection).
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

export const pooledFetch: FetchLike = async (url, init) => {
  const signal = init?.signal ?? undefined;
  const local = new AbortController();
  const onAbort = () => local.abort(signal?.reason);
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await request(url, {
      method: (init?.method ?? 'GET') as 'GET',
      headers: headersOf(init),
      body: typeof init?.body === 'string' ? init.body : null,
      dispatcher: agent,
      signal: local.signal,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const item of v) headers.append(k, item);
      else if (v !== undefined) headers.set(k, v);
    }
    const noBody = res.statusCode === 204 || res.statusCode === 304 || init?.method === 'HEAD';
    const contentType = headers.get('content-type') ?? '';
    if (noBody) {
      await res.body.dump();
      return new Response(null, { status: res.statusCode, headers });
    }
    if (contentType.includes('text/event-stream')) {
      // Streams stay streams; the listener goes when the stream ends.
      res.body.once('close', () => signal?.removeEventListener('abort', onAbort));
      return new Response(Readable.toWeb(res.body) as ReadableStream, { status: res.statusCode, headers });
    }
    const buf = await res.body.arrayBuffer();
    signal?.removeEventListener('abort', onAbort);
    return new Response(buf, { status: res.statusCode, headers });
  } catch (err) {
    signal?.removeEventListener('abort', onAbort);
    throw err;
  }
};
