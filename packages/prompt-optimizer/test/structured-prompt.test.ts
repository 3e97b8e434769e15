// The structured prompt format: the strict parser (what is used unchanged, with no model call), the
// renderer (what a rewrite sends upstream) and the checks against the request.
import { checkStructuredPrompt, parseStructuredPrompt, renderStructuredPrompt, StructuredPrompt } from '../src';

const FOX: StructuredPrompt = {
  subjects: [
    { label: '<Picture 1>', description: 'a red fox with a white-tipped tail' },
    { label: '<Picture 2>', description: 'a birch forest under fresh snow' },
  ],
  shots: [
    { start: 0, end: 2, description: 'wide shot of <Picture 2>; <Picture 1> trots in' },
    { start: 2, end: 5, description: 'close-up of <Picture 1>: it looks at the camera' },
  ],
  sound: { voice: 'none', music: 'soft piano', effects: 'crunching snow' },
};
const TEXT = `Subjects:
- <Picture 1>: a red fox with a white-tipped tail
- <Picture 2>: a birch forest under fresh snow
Shots:
1. 0-2 s: wide shot of <Picture 2>; <Picture 1> trots in
2. 2-5 s: close-up of <Picture 1>: it looks at the camera
Sound:
- Voice: none
- Music: soft piano
- Effects: crunching snow`;

describe('structured prompt format', () => {
  it('renders the documented text and parses it back to the same structure', () => {
    expect(renderStructuredPrompt(FOX)).toBe(TEXT);
    expect(parseStructuredPrompt(TEXT)).toEqual(FOX);
  });

  it('accepts blank lines, CRLF and trailing spaces', () => {
    expect(parseStructuredPrompt(`\n${TEXT.replace(/\n/g, '  \r\n\r\n')}\n`)).toEqual(FOX);
  });

  it('folds a description with newlines onto one line, so the rewrite still parses', () => {
    const p = { ...FOX, shots: [{ start: 0, end: 5, description: 'one\ntwo' }] };
    expect(parseStructuredPrompt(renderStructuredPrompt(p))?.shots[0].description).toBe('one two');
  });

  it.each([
    ['prose', 'a red fox trots through a snowy forest'],
    ['a section missing', TEXT.replace(/Shots:\n.*\n.*\n/, '')],
    ['sections out of order', TEXT.replace('Subjects:', 'Shots:x').replace('Shots:\n', 'Subjects:\n')],
    ['an empty subjects section', TEXT.replace(/- <Picture 1>.*\n- <Picture 2>.*\n/, '')],
    ['shots not numbered from 1', TEXT.replace('1. 0-2 s', '3. 0-2 s')],
    ['a shot without the seconds', TEXT.replace('1. 0-2 s: ', '1. ')],
    ['a sound line missing', TEXT.replace('- Music: soft piano\n', '')],
    ['sound lines out of order', TEXT.replace('- Music: soft piano\n- Effects: crunching snow', '- Effects: crunching snow\n- Music: soft piano')],
    ['text before the first section', `Make it cinematic.\n${TEXT}`],
    ['text after the last section', `${TEXT}\nThanks!`],
    ['an empty description', TEXT.replace('- Voice: none', '- Voice: ')],
    ['a subject label with a broken reference', TEXT.replace('- <Picture 1>:', '- <Picture one>:')],
  ])('does not take %s as the format', (_case, text) => {
    expect(parseStructuredPrompt(text)).toBeNull();
  });

  it('passes the checks for a request with two images and 5 seconds', () => {
    expect(checkStructuredPrompt(FOX, { pictures: 2, audios: 0, durationSeconds: 5 })).toEqual([]);
  });

  it('names references that do not exist, references left undescribed, and shots past the duration', () => {
    const p = { ...FOX, shots: [...FOX.shots, { start: 5, end: 7, description: '<Picture 9> and <Audio 1> appear' }] };
    expect(checkStructuredPrompt(p, { pictures: 3, audios: 0, durationSeconds: 6 })).toEqual([
      '<Picture 9> does not exist (the request has 3 image references)',
      '<Audio 1> does not exist (the request has 0 audio references)',
      '<Picture 3> is not described under Subjects',
      'shot 3 ends at 7 s, after the video\'s 6 s',
    ]);
  });

  it('refuses overlapping shots, empty parts and empty sections', () => {
    const p: StructuredPrompt = { subjects: [], shots: [{ start: 0, end: 3, description: 'a' }, { start: 2, end: 4, description: ' ' }], sound: { voice: '', music: 'x', effects: 'y' } };
    expect(checkStructuredPrompt(p, { pictures: 0, audios: 0, durationSeconds: 5 })).toEqual([
      'no subjects',
      'shot 2 has no description',
      'shot 2 (2-4 s) does not follow the previous shot',
      'sound voice is empty (write none)',
    ]);
  });
});
