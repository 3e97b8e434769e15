// Inline images of a streamed large body, written to storage while they arrive: each data URI at a
// place a reference image may be (`images[n]`, `first_frame`, `last_frame`, `media[n].url`) that
// grows past STAGE_FROM characters with a `data:image/...;base64,` header is decoded piece by piece
// straight into a storage write, so neither its text nor its bytes are ever held whole. The parsed
// body holds a stand-in string instead (`staged-inline:<uuid>`), which the catalog and the media
// checks look up in this request's map only (a stand-in sent by a client means nothing).
//
// What is noted while it arrives is what the checks of a data URI held in memory look at: the
// header's mime type, the decoded size the text's length gives, whether the text is valid base64
// (same rule, no line breaks), the first decoded bytes (sniffing), and a sha256 of the whole string
// (the idempotency fingerprint). A text that turns out invalid or over the per-file limit stops
// being written at once (the partial write is abandoned: storage never shows it); the refusal is
// the catalog's, with the same status, code and message as for a data URI held in memory.
//
// Files are stored under their final input key. Every file the request does not hand over to a
// task (keep()) is deleted when the request is done with them (discard()): a refused or failed
// submit, a quote, a client gone, a body that turned out malformed.
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { base64DecodedBytesOf, DATA_URI_HEADER, MAX_INLINE_FILE_BYTES, MAX_INLINE_FILES } from '@mediagen/catalog';
import { extensionFor, sniffMime, type StagedInline } from '@mediagen/media';
import { newInputKey, type StorageDriver } from '@mediagen/storage';
import type { JsonPath, StringSink } from './json-stream';
import { DIGEST_FROM } from '../services/fingerprint';

/**
 * Data URIs from this many characters on are staged; shorter ones stay strings. The idempotency
 * fingerprint counts data URIs from the same length on by their digest, so both forms hash alike.
 */
export const STAGE_FROM = DIGEST_FROM;
/** Decoded bytes kept for sniffing (sniffMime reads 64). */
const HEAD_BYTES = 64;
/** Decoded bytes buffered toward storage before the body's reading waits for the write. */
const WRITE_BUFFER = 1024 * 1024;
const TOKEN_PREFIX = 'staged-inline:';
const BASE64_RUN = /^[A-Za-z0-9+/]*={0,2}$/;
const PAD_ONLY = /^=*$/;

const mediaPlace = (p: JsonPath): boolean =>
  (p.length === 2 && p[0] === 'images' && typeof p[1] === 'number') ||
  (p.length === 1 && (p[0] === 'first_frame' || p[0] === 'last_frame')) ||
  (p.length === 3 && p[0] === 'media' && typeof p[1] === 'number' && p[2] === 'url');

export interface StagedEntry extends StagedInline {
  /** sha256 (hex) of the whole data URI string as sent, header included. */
  sha256: string;
}

/** This request's staged files; one per streamed body. */
export class InlineStager {
  readonly files = new Map<string, StagedEntry>();
  private readonly writes: Promise<void>[] = [];
  private readonly sinks = new Set<Base64Sink>();
  private readonly kept = new Set<string>();
  private waiting: Promise<void> | null = null;
  private failure: Error | null = null;
  private discarded = false;

  constructor(private readonly storage: StorageDriver) {}

  /** For JsonStreamParser's `divert`. */
  readonly divert = (path: JsonPath, head: string): StringSink | null => {
    if (this.discarded || !mediaPlace(path)) return null;
    const m = DATA_URI_HEADER.exec(head);
    if (!m || m[2].toLowerCase() !== ';base64' || !m[1].toLowerCase().startsWith('image/')) return null;
    // No request may carry more inline files than this; data URIs past it (repeated keys) are
    // checked and counted, never written, so one body cannot make hundreds of files.
    const store = this.files.size + this.sinks.size < MAX_INLINE_FILES;
    const sink = new Base64Sink(this, m[1].toLowerCase(), this.files.size + this.sinks.size, head.length - m[0].length, store);
    this.sinks.add(sink);
    return sink;
  };

  /** A promise to wait on before reading more of the body (a storage write is behind), or null. */
  backpressure(): Promise<void> | null {
    return this.waiting;
  }

  /** Waits for every write; rejects when storage failed one the checks would have accepted. */
  async settle(): Promise<void> {
    await Promise.all(this.writes);
    if (this.failure) throw this.failure;
  }

  /** The file under `key` belongs to a task now: discard() leaves it. */
  keep(key: string): void {
    this.kept.add(key);
  }

  /** Stops open writes and deletes every file not kept. Idempotent. */
  async discard(): Promise<void> {
    this.discarded = true;
    for (const s of this.sinks) s.abort();
    await Promise.allSettled(this.writes);
    const keys = [...this.files.values()].map((f) => f.key).filter((k): k is string => k !== null && !this.kept.has(k));
    for (const f of this.files.values()) if (f.key && !this.kept.has(f.key)) f.key = null;
    await Promise.allSettled(keys.map((k) => this.storage.delete(k)));
  }

  /** @internal The sink's write to storage. */
  startWrite(sink: Base64Sink, key: string, mime: string): PassThrough {
    const pass = new PassThrough({ highWaterMark: WRITE_BUFFER });
    // An abandoned write is destroyed with its reason; the put reports it (or has not started yet).
    pass.on('error', () => undefined);
    const done = this.storage.put(key, pass, mime).then(
      () => sink.stored(key),
      (err: Error) => {
        if (!sink.abandoned && !this.failure) this.failure = err;
      },
    );
    this.writes.push(done);
    return pass;
  }

  /** @internal A sink's write buffer is full: the body's reading waits for it to drain. */
  wait(pass: PassThrough): void {
    if (this.waiting) return;
    this.waiting = new Promise<void>((resolve) => {
      const go = () => {
        pass.off('drain', go);
        pass.off('close', go);
        this.waiting = null;
        resolve();
      };
      pass.on('drain', go);
      pass.on('close', go);
    });
  }

  /** @internal */
  register(entry: StagedEntry): string {
    const token = `${TOKEN_PREFIX}${randomUUID()}`;
    this.files.set(token, entry);
    return token;
  }

  /** @internal */
  finished(sink: Base64Sink): void {
    this.sinks.delete(sink);
  }
}

/** One data URI's text after the header: checked, decoded and written as it arrives. */
class Base64Sink implements StringSink {
  private readonly hash: Hash = createHash('sha256');
  private chars = 0;
  private pads = 0;
  private last2 = '';
  private valid = true;
  private carry = '';
  private decoded = 0;
  private head = Buffer.alloc(0);
  private pass: PassThrough | null = null;
  private key: string | null = null;
  private storedKey: string | null = null;
  private entry: StagedEntry | null = null;
  abandoned = false;

  constructor(
    private readonly stager: InlineStager,
    private readonly declaredMime: string,
    private readonly index: number,
    /** How many characters of the first write are data (the rest is the header). */
    private firstData: number,
    /** False: checked and counted only, never written (key stays null). */
    private readonly store: boolean,
  ) {}

  write(chars: string): void {
    this.hash.update(chars);
    let data = chars;
    if (this.firstData >= 0) {
      data = chars.slice(chars.length - this.firstData);
      this.firstData = -1;
    }
    if (data.length === 0) return;
    this.chars += data.length;
    this.last2 = (this.last2 + data.slice(-2)).slice(-2);
    if (!this.valid) return;
    if (!this.checkRun(data)) return this.invalidate();
    const text = this.carry + data;
    const whole = text.length - (text.length % 4);
    this.carry = text.slice(whole);
    if (whole > 0) this.out(Buffer.from(text.slice(0, whole), 'base64'));
  }

  end(): unknown {
    if (this.valid) {
      const endsRight = this.pads > 0 ? this.chars % 4 === 0 : this.chars % 4 !== 1;
      if (this.chars === 0 || !endsRight) this.invalidate();
      else if (this.carry) this.out(Buffer.from(this.carry, 'base64'));
    }
    if (this.valid && this.store && !this.pass && !this.abandoned) this.open(); // a short file: its head is all of it
    this.pass?.end();
    const pad = this.last2 === '==' ? 2 : this.last2.endsWith('=') ? 1 : 0;
    this.entry = {
      declaredMime: this.declaredMime,
      inlineBytes: base64DecodedBytesOf(this.chars, pad),
      validBase64: this.valid,
      head: this.head,
      key: null,
      bytes: this.decoded,
      sha256: this.hash.digest('hex'),
    };
    if (this.storedKey) this.entry.key = this.storedKey;
    this.stager.finished(this);
    return this.stager.register(this.entry);
  }

  abort(): void {
    this.abandon(new Error('inline file abandoned'));
    this.stager.finished(this);
  }

  /** @internal The write under `key` completed. */
  stored(key: string): void {
    this.storedKey = key;
    if (this.entry) this.entry.key = key;
  }

  /** Base64 characters, then at most two `=` at the very end of the whole text. */
  private checkRun(data: string): boolean {
    if (this.pads > 0) {
      if (!PAD_ONLY.test(data)) return false;
      this.pads += data.length;
      return this.pads <= 2;
    }
    if (!BASE64_RUN.test(data)) return false;
    const eq = data.indexOf('=');
    if (eq >= 0) this.pads = data.length - eq;
    return true;
  }

  private invalidate(): void {
    this.valid = false;
    this.carry = '';
    this.abandon(new Error('inline file is not valid base64'));
  }

  private abandon(err: Error): void {
    this.abandoned = true;
    this.pass?.destroy(err);
    this.pass = null;
  }

  private out(bytes: Buffer): void {
    this.decoded += bytes.length;
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, bytes.subarray(0, HEAD_BYTES - this.head.length)]);
    if (this.abandoned || !this.store) return;
    if (this.decoded > MAX_INLINE_FILE_BYTES) return this.abandon(new Error('inline file over the limit'));
    if (!this.pass) {
      if (this.head.length < HEAD_BYTES) {
        // Not enough to sniff yet: keep these bytes until the write opens.
        this.pending.push(bytes);
        return;
      }
      this.open();
    }
    if (!this.pass!.write(bytes)) this.stager.wait(this.pass!);
  }

  private pending: Buffer[] = [];

  /** Opens the write under a key named for what the first bytes are. */
  private open(): void {
    const sniffed = sniffMime(this.head);
    this.key = newInputKey(this.index, extensionFor(sniffed ?? this.declaredMime));
    this.pass = this.stager.startWrite(this, this.key, sniffed ?? this.declaredMime);
    for (const b of this.pending) this.pass.write(b);
    this.pending = [];
  }
}
