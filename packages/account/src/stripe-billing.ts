// Stripe Checkout through the official `stripe` SDK: sessions are created with the amount the
// holder picked (within the operator's bounds) and the account in client_reference_id; events are
// verified with the SDK against the raw body. STRIPE_API_URL points the SDK at a stand-in in tests.
import type Stripe from 'stripe';

export interface StripeBilling {
  createCheckout(p: { accountId: string; email: string; amountCents: number; currency: string; successUrl: string; cancelUrl: string }): Promise<{ id: string; url: string }>;
  /** The verified event, or throws (bad or missing signature, a body that is not an event). */
  verify(rawBody: Buffer, signature: string | undefined): Stripe.Event;
}

export function createStripeBilling(cfg: { secretKey: string; webhookSecret: string; apiUrl: string }): StripeBilling {
  const u = new URL(cfg.apiUrl);
  // Loaded here, not at import: without Stripe settings the SDK's ~220 modules never load
  // (docs/benchmark.md, "Gateway RSS on Node 24"). Its CommonJS export is the constructor.
  const StripeSdk = require('stripe') as typeof Stripe;
  const stripe = new StripeSdk(cfg.secretKey, {
    host: u.hostname,
    port: u.port || (u.protocol === 'http:' ? 80 : 443),
    protocol: u.protocol === 'http:' ? 'http' : 'https',
    maxNetworkRetries: 2,
    timeout: 15_000,
    appInfo: { name: 'mediagen' },
  });
  return {
    async createCheckout(p) {
      const s = await stripe.checkout.sessions.create({
        mode: 'payment',
        client_reference_id: p.accountId,
        customer_email: p.email,
        line_items: [{ quantity: 1, price_data: { currency: p.currency, unit_amount: p.amountCents, product_data: { name: 'Balance top-up' } } }],
        metadata: { accountId: p.accountId },
        success_url: p.successUrl,
        cancel_url: p.cancelUrl,
      });
      if (!s.url) throw new Error(`Stripe returned checkout session ${s.id} without a url`);
      return { id: s.id, url: s.url };
    },
    verify(rawBody, signature) {
      if (!signature) throw new Error('missing Stripe-Signature header');
      return stripe.webhooks.constructEvent(rawBody, signature, cfg.webhookSecret);
    },
  };
}
