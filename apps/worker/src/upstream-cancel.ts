// Whether a channel's adapter can cancel a running render upstream (capabilities.cancel with a
// cancel() to call), and the call itself.
import type { ChannelAdapter } from '@mediagen/providers';

/** The adapter's cancel call, or null when its upstream has none. */
export function upstreamCancel(adapter: ChannelAdapter | undefined): ((upstreamId: string) => Promise<void>) | null {
  if (!adapter?.capabilities.cancel || !adapter.cancel) return null;
  return (id) => adapter.cancel!(id);
}
