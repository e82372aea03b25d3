// Wakes long-polling sidecars when a workspace's revision moves (NOTIFY
// agentwall_revision "<workspace>:<revision>", sent by bumpRevision).
import type { NotifyHub } from './notify.js';
import { waitFor } from './notify.js';

export const REVISION_CHANNEL = 'agentwall_revision';

export interface RevisionHub {
  /** Resolves with the new revision, or undefined after timeoutMs, on abort or on close. */
  waitForChange(workspaceId: number, after: number, timeoutMs: number, signal?: AbortSignal): Promise<number | undefined>;
}

export function createRevisionHub(hub: NotifyHub, current: (ws: number) => Promise<number | undefined>): RevisionHub {
  return {
    waitForChange(workspaceId, after, timeoutMs, signal) {
      return waitFor(
        hub,
        REVISION_CHANNEL,
        (p) => p?.startsWith(`${workspaceId}:`) === true,
        async () => {
          const rev = await current(workspaceId);
          return rev !== undefined && rev > after ? rev : undefined;
        },
        timeoutMs,
        signal,
      );
    },
  };
}
