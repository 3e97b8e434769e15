// The streaming JSON parser must build exactly what JSON.parse builds and refuse exactly what it
// refuses, however the text is split, and keep its own limits (depth, string length) on hostile input.
import { JsonNulError, JsonParseError, JsonStreamParser, JsonStringTooLong, MAX_DEPTH, type JsonPath, type StringSink } from '../src/middleware/json-stream';

const parseIn = (pieces: string[], opts = {}): unknown => {
  const p = new JsonStreamParser(opts);
  for (const s of pieces) p.write(s);
  return p.end();
};
const outcome = (f: () => unknown): { ok: unknown } | { error: string } => {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: (e as Error).constructor.name };
  }
};
/** Every way of cutting `text` in two, and one character at a time. */
const splits = (text: string): string[][] => [[text], ...Array.from({ length: text.length - 1 }, (_, i) => [text.slice(0, i + 1), text.slice(i + 1)]), [...text]];

const VALID = [
  '{}',
  '[]',
  ' \t\n\r{ "a" : [ 1 , 2.5 , -0 , -0.0e-0 , 1E+2 , 3e400 , 0.1 ] , "b" : { } }\n',
  '"just a string"',
  '42',
  '-7.25e-3',
  'true',
  'false',
  'null',
  '[true,false,null,"x",{"y":[[]]}]',
  '{"esc":"\\"\\\\\\/\\b\\f\\n\\r\\t","u":"\\u00e9\\uD83D\\uDE00\\ud800","raw":"é😀"}',
  '{"a":1,"a":2,"b":{"a":3},"a":4}',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":1}}',
  '{"":""}',
  '[[[[[[[[["deep"]]]]]]]]]',
  '{"n":12345678901234567890,"m":-0.000001}',
];

const INVALID = [
  '{',
  '[',
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '[1,]',
  '[,1]',
  '{,}',
  '{"a" 1}',
  '{a:1}',
  "{'a':1}",
  '[01]',
  '[1.]',
  '[.5]',
  '[-]',
  '[1e]',
  '[+1]',
  '[0x10]',
  '[tru]',
  '[truee]',
  '[nul]',
  '[True]',
  '[NaN]',
  '[Infinity]',
  '"abc',
  '"a\\x"',
  '"\\u12"',
  '"\\u12G4"',
  '"tab\there"',
  '"nl\nhere"',
  '{}{}',
  '1 2',
  '[1]]',
  '{"a":1}}',
  ' ',
  '\u00a0{}',
  '{"a":1 /* c */}',
];

describe('JsonStreamParser against JSON.parse', () => {
  it.each(VALID)('builds what JSON.parse builds from %j, split anywhere', (text) => {
    const expected = JSON.parse(text);
    for (const pieces of splits(text)) {
      const got = parseIn(pieces);
      expect(got).toEqual(expected);
      expect(Object.is((got as { a?: number[] })?.a?.[2], (expected as { a?: number[] })?.a?.[2])).toBe(true); // -0 stays -0
    }
  });

  it('makes __proto__ an own property (no prototype change) and lets the last duplicate key win in the first place', () => {
    const got = parseIn(['{"b":0,"__proto__":{"polluted":true},"b":1,"c":2}']) as Record<string, unknown>;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(['b', '__proto__', 'c']);
    expect(got.b).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ polluted: true });
  });

  it.each(INVALID)('refuses %j as JSON.parse does, split anywhere', (text) => {
    expect(() => JSON.parse(text)).toThrow();
    for (const pieces of splits(text)) expect(outcome(() => parseIn(pieces))).toEqual({ error: 'JsonParseError' });
  });

  it('refuses every truncation of a valid body (a body cut short)', () => {
    const text = '{"model":"m","images":["data:image/png;base64,AAAA"],"n":[1.5,true,null],"o":{"k":"v\\u00e9"}}';
    for (let i = 1; i < text.length; i++) {
      const cut = text.slice(0, i);
      const jsonVerdict = outcome(() => JSON.parse(cut));
      const ours = outcome(() => parseIn([cut]));
      // Only a prefix that is itself a whole value parses (never here: the body is an object).
      expect('error' in jsonVerdict).toBe(true);
      expect(ours).toEqual({ error: 'JsonParseError' });
    }
  });

  it('reads an empty body as {} but whitespace alone is bad JSON', () => {
    expect(parseIn([])).toEqual({});
    expect(parseIn(['', ''])).toEqual({});
    expect(outcome(() => parseIn(['  ']))).toEqual({ error: 'JsonParseError' });
  });
});

describe('JsonStreamParser limits on hostile input', () => {
  it(`nests at most ${MAX_DEPTH} containers deep, refused at once without building deeper`, () => {
    const ok = '['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH);
    expect(outcome(() => parseIn([ok]))).toHaveProperty('ok');
    const p = new JsonStreamParser();
    expect(() => p.write('['.repeat(MAX_DEPTH + 1))).toThrow(JsonParseError);
    expect(() => p.write(']')).toThrow(JsonParseError); // stays failed
    expect(outcome(() => parseIn(['{"a":'.repeat(200_000)]))).toEqual({ error: 'JsonParseError' });
  });

  it('counts an over-long string to the end without keeping it, and names its path', () => {
    const p = new JsonStreamParser({ maxStringChars: 1000 });
    p.write('{"media":[{"url":"');
    for (let i = 0; i < 100; i++) p.write('x'.repeat(100));
    p.write('"}],"ok":"');
    p.write('y'.repeat(1000));
    p.write('"}');
    const e = outcome(() => p.end());
    expect(e).toEqual({ error: 'JsonStringTooLong' });
    try {
      p.end();
    } catch (err) {
      expect((err as JsonStringTooLong).path).toBe('media[0].url');
      expect((err as JsonStringTooLong).chars).toBe(10_000);
    }
  });

  it('reports a U+0000 escape (in a value or a key) after the whole body parsed, and bad JSON before it', () => {
    expect(outcome(() => parseIn(['{"a":"x\\u0000"}']))).toEqual({ error: 'JsonNulError' });
    expect(outcome(() => parseIn(['{"a\\u0000":1}']))).toEqual({ error: 'JsonNulError' });
    expect(outcome(() => parseIn(['{"a":"x\\u0000",}']))).toEqual({ error: 'JsonParseError' });
    expect(outcome(() => parseIn(['{"a":"x\\\\u0000"}']))).toEqual({ ok: { a: 'x\\u0000' } });
    expect(new JsonNulError()).toBeInstanceOf(Error);
  });

  it('keeps a huge string whole when nobody diverts it', () => {
    const big = 'Q'.repeat(3 * 1024 * 1024 + 7);
    const text = JSON.stringify({ s: big, t: 'é\n' });
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += 65_521) pieces.push(text.slice(i, i + 65_521));
    expect(parseIn(pieces)).toEqual({ s: big, t: 'é\n' });
  });
});

describe('JsonStreamParser diverting long strings', () => {
  class Collect implements StringSink {
    text = '';
    aborted = false;
    constructor(readonly path: JsonPath) {}
    write(chars: string) {
      this.text += chars;
    }
    end() {
      return `<${this.path.join('/')}:${this.text.length}>`;
    }
    abort() {
      this.aborted = true;
    }
  }

  it('hands a string past the threshold to its sink whole, escapes resolved, however the body is split', () => {
    const long = 'data:image/png;base64,' + 'AbC/+9'.repeat(20) + '\\/' + 'z'.repeat(5) + '==';
    const text = `{"a":"short","images":["${long}",{"k":"${'w'.repeat(50)}"}],"first_frame":"${long}"}`;
    const expected = JSON.parse(text);
    for (const pieces of splits(text)) {
      const sinks: Collect[] = [];
      const got = parseIn(pieces, {
        divertFrom: 40,
        divert: (path: JsonPath, head: string) => {
          if (!head.startsWith('data:')) return null;
          const s = new Collect(path);
          sinks.push(s);
          return s;
        },
      }) as Record<string, unknown>;
      expect(sinks.map((s) => s.text)).toEqual([expected.images[0], expected.first_frame]);
      expect(got).toEqual({ ...expected, images: [`<images/0:${expected.images[0].length}>`, expected.images[1]], first_frame: `<first_frame:${expected.first_frame.length}>` });
    }
  });

  it('aborts the sink of a string that grows over the limit, and of a body that turns out malformed', () => {
    const sinks: Collect[] = [];
    const divert = (path: JsonPath) => {
      const s = new Collect(path);
      sinks.push(s);
      return s;
    };
    const p = new JsonStreamParser({ divertFrom: 10, maxStringChars: 100, divert });
    p.write(`["${'a'.repeat(50)}`);
    expect(sinks[0].aborted).toBe(false);
    p.write(`${'a'.repeat(150)}"]`);
    expect(sinks[0].aborted).toBe(true);
    expect(outcome(() => p.end())).toEqual({ error: 'JsonStringTooLong' });
    const q = new JsonStreamParser({ divertFrom: 10, divert });
    q.write(`["${'b'.repeat(50)}`);
    expect(() => q.write('\\q')).toThrow(JsonParseError);
    expect(sinks[1].aborted).toBe(true);
  });
});
