// A JSON parser fed the body's text piece by piece as it arrives, so a large body never exists as
// one string or one buffer. It builds exactly what JSON.parse builds (strict: false, any value at
// the top; the last of duplicate keys wins; `__proto__` is an own property) and refuses what
// JSON.parse refuses. On top of that:
// - A string value that grows past `divertFrom` characters is offered to `divert` with its path and
//   the characters so far; a sink that takes it receives the rest piece by piece, and what its
//   end() returns stands in the parsed value for the string (inline files: data URIs written to
//   storage while they arrive, see inline-staging.ts).
// - Containers nest at most `maxDepth` deep (no request needs more; the stack never grows with the
//   body), a string over `maxStringChars` is counted, never kept, and a U+0000 is noted.
// Errors, most important first, as the body's final verdict: bad JSON (JsonParseError, thrown at
// once), a U+0000 (JsonNulError), an over-long string (JsonStringTooLong); the last two are
// thrown by end(), so a body that is also malformed further on is reported as malformed.
// Each write() does work proportional to its piece (a few hundred microseconds for 64 KiB): the
// event loop is never held by one body.

/** No field of any request accepts a string this long (an inline file is at most 10 MiB decoded, ~14 M base64 characters). */
export const MAX_STRING_CHARS = 16 * 1024 * 1024;

/** No request nests deeper than a few levels. */
export const MAX_DEPTH = 64;

export class JsonParseError extends Error {}
export class JsonNulError extends Error {
  constructor() {
    super('Request body contains a NUL character (\\u0000)');
  }
}
export class JsonStringTooLong extends Error {
  constructor(
    readonly path: string,
    readonly chars: number,
    max: number,
  ) {
    super(`${path || 'the body'}: a string of ${chars} characters; no field accepts more than ${max} (an inline file is at most 10 MiB)`);
  }
}

export type JsonPath = readonly (string | number)[];

/** Takes over one long string value. */
export interface StringSink {
  /** The next characters of the string, escapes resolved. */
  write(chars: string): void;
  /** The string is complete; the value that stands for it in the parsed body. */
  end(): unknown;
  /** The string will not be used (too long, or the body failed): drop what was taken. */
  abort(): void;
}

export interface JsonStreamOptions {
  maxDepth?: number;
  maxStringChars?: number;
  /** String values reaching this many characters are offered to `divert`. */
  divertFrom?: number;
  /** A sink for the string at `path` whose first characters are `head`, or null to keep it in memory. */
  divert?: (path: JsonPath, head: string) => StringSink | null;
}

const enum S {
  Value,
  ValueOrEndArray,
  KeyOrEndObject,
  Key,
  Colon,
  CommaOrEnd,
  Str,
  Escape,
  Unicode,
  Num,
  Literal,
  Done,
}

interface Frame {
  arr: unknown[] | null;
  obj: Record<string, unknown> | null;
  key: string;
}

const STRING_STOP = /["\\\u0000-\u001f]/g;
const NUMBER_CHARS = /[^0-9+\-.eE]/g;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };
/** Pieces of a string kept in memory are joined into parts of this size (escapes come one character at a time). */
const PART_CHARS = 64 * 1024;

export class JsonStreamParser {
  private readonly maxDepth: number;
  private readonly maxString: number;
  private readonly divertFrom: number;
  private readonly divert: JsonStreamOptions['divert'];

  private state = S.Value;
  private readonly stack: Frame[] = [];
  private root: unknown = undefined;
  private failed: JsonParseError | null = null;
  private nul = false;
  private tooLong: JsonStringTooLong | null = null;
  private seenText = false;

  // The string being read.
  private isKey = false;
  private parts: string[] = [];
  private tail = '';
  private len = 0;
  private offered = false;
  private dropping = false;
  private sink: StringSink | null = null;
  private unicode = '';
  // The number or literal being read.
  private token = '';

  constructor(opts: JsonStreamOptions = {}) {
    this.maxDepth = opts.maxDepth ?? MAX_DEPTH;
    this.maxString = opts.maxStringChars ?? MAX_STRING_CHARS;
    this.divertFrom = opts.divertFrom ?? Infinity;
    this.divert = opts.divert;
  }

  /** Feeds the next piece of text; throws JsonParseError at the first character JSON does not allow. */
  write(text: string): void {
    if (this.failed) throw this.failed;
    if (text.length > 0) this.seenText = true;
    try {
      this.run(text);
    } catch (e) {
      this.fail(e as Error);
    }
  }

  /** The parsed value; throws what the body deserves (see the file's opening comment). */
  end(): unknown {
    if (this.failed) throw this.failed;
    if (!this.seenText) return {}; // an empty body, as body-parser reads it
    try {
      if (this.state === S.Num) this.endNumber();
      else if (this.state === S.Literal) this.endLiteral();
      if (this.state !== S.Done) throw new JsonParseError('Unexpected end of JSON input');
    } catch (e) {
      this.fail(e as Error);
    }
    if (this.nul) throw new JsonNulError();
    if (this.tooLong) throw this.tooLong;
    return this.root;
  }

  /** Drops a string sink still open (the body will not be used). */
  abort(): void {
    this.sink?.abort();
    this.sink = null;
  }

  private fail(e: Error): never {
    this.abort();
    this.failed = e instanceof JsonParseError ? e : new JsonParseError(e.message);
    throw this.failed;
  }

  private run(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case S.Str:
          i = this.readString(text, i);
          break;
        case S.Escape:
          i = this.readEscape(text, i);
          break;
        case S.Unicode:
          i = this.readUnicode(text, i);
          break;
        case S.Num:
          i = this.readNumber(text, i);
          break;
        case S.Literal:
          i = this.readLiteral(text, i);
          break;
        default: {
          const c = text.charCodeAt(i);
          if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) this.structural(text[i]);
          i++;
        }
      }
    }
  }

  private unexpected(ch: string): never {
    throw new JsonParseError(`Unexpected token '${ch}' in JSON`);
  }

  private structural(ch: string): void {
    switch (this.state) {
      case S.ValueOrEndArray:
        if (ch === ']') return this.close();
      // falls through
      case S.Value:
        return this.beginValue(ch);
      case S.KeyOrEndObject:
        if (ch === '}') return this.close();
      // falls through
      case S.Key:
        if (ch !== '"') return this.unexpected(ch);
        return this.beginString(true);
      case S.Colon:
        if (ch !== ':') return this.unexpected(ch);
        this.state = S.Value;
        return;
      case S.CommaOrEnd: {
        const top = this.stack[this.stack.length - 1];
        if (ch === ',') {
          this.state = top.arr ? S.Value : S.Key;
          return;
        }
        if ((top.arr && ch === ']') || (top.obj && ch === '}')) return this.close();
        return this.unexpected(ch);
      }
      default:
        return this.unexpected(ch);
    }
  }

  private beginValue(ch: string): void {
    if (ch === '{' || ch === '[') {
      if (this.stack.length >= this.maxDepth) throw new JsonParseError(`Request body nests deeper than ${this.maxDepth} levels`);
      const isArr = ch === '[';
      this.stack.push({ arr: isArr ? [] : null, obj: isArr ? null : {}, key: '' });
      this.state = isArr ? S.ValueOrEndArray : S.KeyOrEndObject;
      return;
    }
    if (ch === '"') return this.beginString(false);
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      this.token = ch;
      this.state = S.Num;
      return;
    }
    if (ch === 't' || ch === 'f' || ch === 'n') {
      this.token = ch;
      this.state = S.Literal;
      return;
    }
    this.unexpected(ch);
  }

  private close(): void {
    const f = this.stack.pop()!;
    this.emit(f.arr ?? f.obj);
  }

  private emit(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.root = v;
      this.state = S.Done;
      return;
    }
    if (top.arr) top.arr.push(v);
    else if (top.key === '__proto__') Object.defineProperty(top.obj, '__proto__', { value: v, writable: true, enumerable: true, configurable: true });
    else top.obj![top.key] = v;
    this.state = S.CommaOrEnd;
  }

  // --- strings

  private beginString(isKey: boolean): void {
    this.isKey = isKey;
    this.parts = [];
    this.tail = '';
    this.len = 0;
    this.offered = false;
    this.dropping = false;
    this.sink = null;
    this.state = S.Str;
  }

  private readString(text: string, i: number): number {
    STRING_STOP.lastIndex = i;
    const m = STRING_STOP.exec(text);
    const j = m ? m.index : text.length;
    if (j > i) this.take(i === 0 && j === text.length ? text : text.slice(i, j));
    if (!m) return j;
    const c = text.charCodeAt(j);
    if (c === 0x22) {
      this.endString();
      return j + 1;
    }
    if (c === 0x5c) {
      this.state = S.Escape;
      return j + 1;
    }
    throw new JsonParseError('Bad control character in string literal in JSON');
  }

  private readEscape(text: string, i: number): number {
    const ch = text[i];
    if (ch === 'u') {
      this.unicode = '';
      this.state = S.Unicode;
      return i + 1;
    }
    const v = ESCAPES[ch];
    if (v === undefined) throw new JsonParseError('Bad escaped character in JSON');
    this.state = S.Str;
    this.take(v);
    return i + 1;
  }

  private readUnicode(text: string, i: number): number {
    while (i < text.length && this.unicode.length < 4) {
      const ch = text[i++];
      if (!/[0-9a-fA-F]/.test(ch)) throw new JsonParseError('Bad Unicode escape in JSON');
      this.unicode += ch;
    }
    if (this.unicode.length === 4) {
      const code = parseInt(this.unicode, 16);
      if (code === 0) this.nul = true;
      this.state = S.Str;
      this.take(String.fromCharCode(code));
    }
    return i;
  }

  private take(s: string): void {
    this.len += s.length;
    if (this.dropping) return;
    if (!this.isKey && this.len > this.maxString) {
      // Counted to the end for the error, never kept.
      this.dropping = true;
      this.parts = [];
      this.tail = '';
      this.abort();
      return;
    }
    if (this.sink) return this.sink.write(s);
    this.tail += s;
    if (this.tail.length >= PART_CHARS) {
      this.parts.push(this.tail);
      this.tail = '';
    }
    if (!this.offered && !this.isKey && this.divert && this.len >= this.divertFrom) {
      this.offered = true;
      const head = this.parts.join('') + this.tail;
      const sink = this.divert(this.path(), head);
      if (sink) {
        this.parts = [];
        this.tail = '';
        this.sink = sink;
        sink.write(head);
      }
    }
  }

  private endString(): void {
    if (this.isKey) {
      const key = this.parts.join('') + this.tail;
      this.parts = [];
      this.tail = '';
      this.stack[this.stack.length - 1].key = key;
      this.state = S.Colon;
      return;
    }
    let value: unknown;
    if (this.dropping) {
      if (!this.tooLong) this.tooLong = new JsonStringTooLong(pathText(this.path()), this.len, this.maxString);
      value = null;
    } else if (this.sink) {
      const sink = this.sink;
      this.sink = null;
      value = sink.end();
    } else {
      value = this.parts.length === 0 ? this.tail : this.parts.join('') + this.tail;
    }
    this.parts = [];
    this.tail = '';
    this.emit(value);
  }

  /** Where the value being read sits: keys of objects, indexes of arrays. */
  private path(): (string | number)[] {
    return this.stack.map((f) => (f.arr ? f.arr.length : f.key));
  }

  // --- numbers and literals

  private readNumber(text: string, i: number): number {
    NUMBER_CHARS.lastIndex = i;
    const m = NUMBER_CHARS.exec(text);
    const j = m ? m.index : text.length;
    this.token += text.slice(i, j);
    if (m) this.endNumber();
    return j;
  }

  private endNumber(): void {
    if (!NUMBER.test(this.token)) throw new JsonParseError(`Bad number in JSON`);
    const v = Number(this.token);
    this.token = '';
    this.emit(v);
  }

  private readLiteral(text: string, i: number): number {
    while (i < text.length && this.token.length < 5) {
      const c = text.charCodeAt(i);
      if (c < 0x61 || c > 0x7a) break;
      this.token += text[i++];
    }
    if (i < text.length || this.token.length >= 5) this.endLiteral();
    return i;
  }

  private endLiteral(): void {
    if (!Object.prototype.hasOwnProperty.call(LITERALS, this.token)) throw new JsonParseError(`Unexpected token in JSON`);
    const v = LITERALS[this.token];
    this.token = '';
    this.emit(v);
  }
}

/** The path as the error message names it: `images[0]`, `media[1].url`. */
export function pathText(path: JsonPath): string {
  let out = '';
  for (const p of path) out = typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${p}` : p;
  return out;
}
