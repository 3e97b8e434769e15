// Whether a channel's adapter can cancel a running render upstream, and the call itself. Read by
// duck typing so this works with adapters written before and after `capabilities` and `cancel()`
// joined the adapter contract (/work PROVIDER-CONTRACT: capabilities.cancel + cancel(upstreamId)).
import type { ChannelAdapter } from '@mediagen/providers';

type MaybeCancellable = ChannelAdapter & { capabilities?: { cancel?: boolean }; cancel?: (upstreamId: string) => Promise<void> };

/** The adapter's cancel call, or null when its upstream has none. */
export function upstreamCancel(adapter: ChannelAdapter | undefined): ((upstreamId: string) => Promise<void>) | null {
  const a = adapter as MaybeCancellable | undefined;
  if (!a || a.capabilities?.cancel !== true || typeof a.cancel !== 'function') return null;
  return (id) => a.cancel!(id);
}
