// Test doubles of the account pages' outside world, for the gateway's tests and the end-to-end
// test: an SMTP catcher (smtp-server, the library nodemailer's own tests use) that keeps every
// message, a stand-in of Stripe's API answering POST /v1/checkout/sessions like Stripe, and signed
// Stripe events (the SDK's own test signer).
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import Stripe from 'stripe';

export interface Mailbox {
  url: string;
  messages: { to: string; raw: string }[];
  /** The first link to `path` in the newest message to `to`, waiting for it to arrive. */
  link(to: string, path: string, ms?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const messages: Mailbox['messages'] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        for (const rcpt of session.envelope.rcptTo) messages.push({ to: rcpt.address, raw: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async link(to, path, ms = 10_000) {
      const end = Date.now() + ms;
      for (;;) {
        // quoted-printable soft line breaks ("=\r\n") may split a long link
        const decoded = messages.map((m) => ({ to: m.to, text: m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=') }));
        const text = decoded.reverse().find((m) => m.to === to && m.text.includes(path))?.text;
        const m = text ? new RegExp(`https?://[^\\s]*${path.replace(/[/?]/g, '\\$&')}[^\\s]*`).exec(text) : null;
        if (m) return m[0];
        if (Date.now() > end) throw new Error(`no mail to ${to} with ${path}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface StripeStandIn {
  url: string;
  sessions: { id: string; params: URLSearchParams }[];
  close(): Promise<void>;
}

/** Answers POST /v1/checkout/sessions with a session object as Stripe does (form-encoded request). */
export async function startStripeStandIn(): Promise<StripeStandIn> {
  const sessions: StripeStandIn['sessions'] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions' && req.headers.authorization === 'Bearer sk_test_standin') {
        const params = new URLSearchParams(body);
        const id = `cs_test_${++n}_${Date.now()}`;
        sessions.push({ id, params });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          id, object: 'checkout.session', mode: 'payment', status: 'open', payment_status: 'unpaid',
          amount_total: Number(params.get('line_items[0][price_data][unit_amount]')), currency: params.get('line_items[0][price_data][currency]'),
          client_reference_id: params.get('client_reference_id'), url: `https://checkout.stripe.test/c/pay/${id}`,
        }));
        return;
      }
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'bad request to the stand-in' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sessions, close: () => new Promise((r) => server.close(() => r())) };
}

export const STRIPE_ENV = (standIn: StripeStandIn) => ({ STRIPE_SECRET_KEY: 'sk_test_standin', STRIPE_WEBHOOK_SECRET: 'whsec_test_standin_secret', STRIPE_API_URL: standIn.url });

/** A Stripe event body and its Stripe-Signature header, signed with the SDK's test signer. */
export function signedEvent(type: string, object: Record<string, unknown>, id = `evt_${Math.random().toString(36).slice(2)}`, secret = 'whsec_test_standin_secret') {
  const payload = JSON.stringify({ id, object: 'event', type, api_version: '2025-01-01', created: Math.floor(Date.now() / 1000), data: { object } });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return { id, payload, header };
}

