// The two forms of a reference file, inline limits (decision 10).
import { MAX_INLINE_FILE_BYTES, base64DecodedBytes, parseVideoSubmit } from '../src';
import { AUD, DEV_OPTS, FRAME, IMG, Row, checkRow, dataUri, err, ok, times } from './helpers';

const withItem = (type: string, url: string) => ({ model: 'video-a-h3', prompt: 'p', media: [{ type, url }] });
const vb = (type: string, url: string) => ({ model: 'video-b-2.5', prompt: 'p', media: [{ type, url }] });
const P = 'media[0].url';

const rows: Row[] = [
  { rule: 'https URL', body: withItem('image', 'https://cdn.example.com/a.png'), expect: ok({ media: [{ kind: 'image', source: 'url', path: P, role: 'reference' }] }) },
  { rule: 'http URL rejected', body: withItem('image', 'http://cdn.example.com/a.png'), expect: err('invalid_media', P, /https/) },
  { rule: 'http URL allowed with ALLOW_PRIVATE_MEDIA_URLS', body: withItem('image', 'http://cdn.example.com/a.png'), opts: DEV_OPTS, expect: ok({ media: [{ source: 'url' }] }) },
  { rule: 'other schemes rejected', body: withItem('image', 'ftp://cdn.example.com/a.png'), expect: err('invalid_media', P) },
  { rule: 'not a URL', body: withItem('image', 'cdn.example.com/a.png'), expect: err('invalid_media', P) },
  { rule: 'URL with user:password', body: withItem('image', 'https://u:p@cdn.example.com/a.png'), expect: err('invalid_media', P, /password/) },
  { rule: 'URL up to 2048 characters', body: withItem('image', `https://cdn.example.com/${'a'.repeat(2048 - 24)}`), expect: ok({ media: [{ source: 'url' }] }) },
  { rule: 'URL over 2048 characters', body: withItem('image', `https://cdn.example.com/${'a'.repeat(2049 - 24)}`), expect: err('invalid_media', P, /2048/) },
  ...['https://localhost/a.png', 'https://127.0.0.1/a.png', 'https://10.1.2.3/a.png', 'https://192.168.0.5/a.png', 'https://169.254.169.254/latest', 'https://[::1]/a.png', 'https://0x7f.1/a.png', 'https://metadata/a'].map(
    (url): Row => ({ rule: `private host refused: ${url}`, body: withItem('image', url), expect: err('invalid_media', P, /public/) }),
  ),
  { rule: 'private host allowed with ALLOW_PRIVATE_MEDIA_URLS', body: withItem('image', 'http://127.0.0.1:4010/a.png'), opts: DEV_OPTS, expect: ok({ media: [{ source: 'url' }] }) },
  { rule: 'public IP literal accepted', body: withItem('image', 'https://93.184.216.34/a.png'), expect: ok({ media: [{ source: 'url' }] }) },
  // data URIs
  ...['image/jpeg', 'image/png', 'image/webp'].map((mime): Row => ({ rule: `image data URI ${mime}`, body: withItem('image', dataUri(mime, 99)), expect: ok({ media: [{ source: 'inline', mime, inlineBytes: 99 }] }) })),
  { rule: 'image/jpg is read as image/jpeg', body: withItem('image', dataUri('image/jpg', 10)), expect: ok({ media: [{ mime: 'image/jpeg' }] }) },
  { rule: 'mime type is case-insensitive', body: withItem('image', dataUri('IMAGE/PNG', 10)), expect: ok({ media: [{ mime: 'image/png' }] }) },
  { rule: 'image/gif is not an inline type', body: withItem('image', dataUri('image/gif', 10)), expect: err('invalid_media', P, /image\/gif/) },
  ...['audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/ogg', 'audio/aac', 'audio/mp4', 'audio/x-m4a', 'audio/m4a', 'audio/flac', 'audio/webm'].map(
    (mime): Row => ({ rule: `audio data URI ${mime}`, body: withItem('audio', dataUri(mime, 12)), expect: ok({ media: [{ kind: 'audio', source: 'inline', mime }] }) }),
  ),
  { rule: 'declared mime must match the item type (audio mime, image item)', body: withItem('image', dataUri('audio/mpeg', 10)), expect: err('invalid_media', P) },
  { rule: 'declared mime must match the item type (image mime, audio item)', body: withItem('audio', dataUri('image/png', 10)), expect: err('invalid_media', P) },
  { rule: 'videos by URL only', body: vb('video', dataUri('video/mp4', 10)), expect: err('invalid_media', P, /URL only/) },
  { rule: 'data URI without ;base64', body: withItem('image', 'data:image/png,AAAA'), expect: err('invalid_media', P, /base64/) },
  { rule: 'data URI with extra parameters', body: withItem('image', 'data:image/png;name=a.png;base64,AAAA'), expect: err('invalid_media', P) },
  { rule: 'invalid base64 characters', body: withItem('image', 'data:image/png;base64,AA$A'), expect: err('invalid_media', P, /base64/) },
  { rule: 'base64 of impossible length', body: withItem('image', 'data:image/png;base64,AAAAA'), expect: err('invalid_media', P, /base64/) },
  { rule: 'padding only at the end of 4-blocks', body: withItem('image', 'data:image/png;base64,AAAAA='), expect: err('invalid_media', P, /base64/) },
  { rule: 'empty data', body: withItem('image', 'data:image/png;base64,'), expect: err('invalid_media', P) },
  { rule: 'unpadded base64 accepted', body: withItem('image', 'data:image/png;base64,AAA'), expect: ok({ media: [{ inlineBytes: 2 }] }) },
  // inline limits
  { rule: 'inline file of exactly 10 MiB', body: withItem('image', dataUri('image/png', MAX_INLINE_FILE_BYTES)), expect: ok({ media: [{ inlineBytes: MAX_INLINE_FILE_BYTES }] }) },
  { rule: 'inline file over 10 MiB', body: withItem('image', dataUri('image/png', MAX_INLINE_FILE_BYTES + 1)), expect: err('invalid_media', P, /10 MiB/) },
  { rule: '12 inline files', body: { model: 'video-b-2.5', prompt: 'p', media: times(12, { type: 'image', url: dataUri('image/png', 3) }) }, expect: ok({ tier: 'official' }) },
  { rule: 'a 13th inline file is too many', body: { model: 'video-b-2.5', prompt: 'p', media: [IMG, ...times(13, { type: 'image', url: dataUri('image/png', 3) })] }, expect: err('invalid_media', 'media[13].url', /12 inline/) },
  { rule: 'frames count toward the 12 inline files', body: { model: 'video-a-h3', prompt: 'p', ref_mode: 'okay', first_frame: dataUri('image/png', 3), last_frame: dataUri('image/png', 3), media: [...times(9, { type: 'image', url: dataUri('image/png', 3) }), ...times(2, { type: 'audio', url: dataUri('audio/mpeg', 3) })] }, expect: err('invalid_media', 'last_frame') },
  { rule: 'URLs do not count toward the inline files', body: { model: 'video-a-h3', prompt: 'p', ref_mode: 'okay', first_frame: FRAME, media: [...times(9, IMG), ...times(3, AUD)] }, expect: ok({ refMode: 'okay' }) },
];

describe('reference media forms', () => {
  test.each(rows)('$rule', (row) => checkRow(parseVideoSubmit, row));
});

describe('base64DecodedBytes', () => {
  test.each([
    ['AAAA', 3], ['AAA=', 2], ['AA==', 1], ['AAA', 2], ['AA', 1], ['AAAAAAAA', 6],
  ])('%s decodes to %i bytes', (data, bytes) => {
    expect(base64DecodedBytes(data)).toBe(bytes);
    expect(Buffer.from(data, 'base64').length).toBe(bytes);
  });
});
