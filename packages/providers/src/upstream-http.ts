// The HTTP client every adapter calls its upstream with: one axios instance per channel.
// - A total deadline per call. axios' own `timeout` in Node is a socket inactivity timer that a
//   provider dripping one byte every few seconds never trips; here `timeout` becomes an
//   AbortSignal.timeout for the whole call, headers and body together.
// - A body cap (channel.maxResponseBytes, counted after decompression, so a gzip bomb is cut too).
// - No redirects: an API answer that redirects is an error, never followed into our network.
// - Keep-alive agents: thousands of renders in flight mean a steady stream of small polls.
// Result files are not fetched with this client: download.ts is the one path for those.
import http from 'node:http';
import https from 'node:https';
import axios, { AxiosError, AxiosInstance, InternalAxiosRequestConfig } from 'axios';
import type { Channel } from './channel-config';
import { UpstreamError } from './upstream-error';

export interface UpstreamHttpOptions {
  /** Protocol-specific auth and fixed headers (`Authorization: Bearer ...`, `x-goog-api-key`, ...). */
  headers?: Record<string, string>;
  /** Defaults to channel.baseUrl. */
  baseURL?: string;
  /** Default deadline of a call without its own `timeout`; defaults to channel.timeouts.pollMs. */
  timeoutMs?: number;
}

export interface UpstreamHttp {
  client: AxiosInstance;
  /** Frees the keep-alive sockets (adapter.close()). */
  close(): void;
}

/** Largest request body we send (inline references for Gemini are base64 in JSON). */
const MAX_REQUEST_BYTES = 200 * 1024 * 1024;

export function createUpstreamHttp(channel: Channel, opts: UpstreamHttpOptions = {}): UpstreamHttp {
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
  const client = axios.create({
    baseURL: (opts.baseURL ?? channel.baseUrl).replace(/\/+$/, ''),
    headers: opts.headers,
    httpAgent,
    httpsAgent,
    maxRedirects: 0,
    maxContentLength: channel.maxResponseBytes,
    maxBodyLength: MAX_REQUEST_BYTES,
    timeout: opts.timeoutMs ?? channel.timeouts.pollMs,
  });
  client.interceptors.request.use((config: InternalAxiosRequestConfig) => withDeadline(config));
  client.interceptors.response.use(undefined, (err: unknown) => Promise.reject(capError(err, channel)));
  return {
    client,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/** Turns the call's `timeout` into a deadline for the whole exchange (combined with any caller signal). */
export function withDeadline(config: InternalAxiosRequestConfig): InternalAxiosRequestConfig {
  const ms = config.timeout;
  if (!ms || ms <= 0) return config;
  const deadline = AbortSignal.timeout(ms);
  const caller = config.signal as AbortSignal | undefined;
  config.signal = caller ? AbortSignal.any([caller, deadline]) : deadline;
  return config;
}

/** An oversized answer will be as big next time: a failed call, not a transient one. */
function capError(err: unknown, channel: Channel): unknown {
  if (err instanceof AxiosError && /maxContentLength/i.test(err.message))
    return new UpstreamError('failed', `the upstream's answer is larger than ${channel.maxResponseBytes} bytes (channel ${channel.id} maxResponseBytes)`);
  if (err instanceof AxiosError && err.code === 'ERR_CANCELED')
    // Our deadline fired: as for any timeout, the next try may well work.
    return new UpstreamError('transient', `the upstream did not answer within the call's deadline`);
  return err;
}
