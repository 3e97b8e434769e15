// Our structured prompt format (docs/prompt-format.md): three sections, Subjects, Shots and Sound,
// in that order, one item per line. The parser is strict on purpose: a prompt it accepts is sent
// unchanged with no model call, so "almost the format" must go to the model instead. The same
// renderer writes the model's JSON answer as text, so what we send upstream always parses here.

export interface Subject {
  /** `<Picture N>`, `<Audio N>`, or a short name of a subject with no reference file. */
  label: string;
  description: string;
}

export interface Shot {
  /** Seconds from the start of the video; end > start. */
  start: number;
  end: number;
  description: string;
}

export interface StructuredPrompt {
  subjects: Subject[];
  shots: Shot[];
  /** Each line is text or `none`; which `<Audio N>` gives a voice's timbre is named in `voice`. */
  sound: { voice: string; music: string; effects: string };
}

const REF = /<(Picture|Audio) ([1-9]\d{0,2})>/g;
const REF_LABEL = /^<(?:Picture|Audio) [1-9]\d{0,2}>$/;
/** A subject without a reference file: a name, no colon or angle brackets (they would read as a reference). */
const NAME_LABEL = /^[^\s:<>][^:<>]{0,59}$/;
const SECONDS = String.raw`(\d{1,3}(?:\.\d{1,2})?)`;
const SUBJECT_LINE = /^- ([^:]{1,64}): (.+)$/;
const SHOT_LINE = new RegExp(String.raw`^(\d{1,3})\. ${SECONDS}-${SECONDS} s: (.+)$`);
const SOUND_LINE = /^- (Voice|Music|Effects): (.+)$/;

const seconds = (n: number): string => String(Math.round(n * 100) / 100);
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The text we send upstream. Descriptions are folded onto one line (a newline would end the item). */
export function renderStructuredPrompt(p: StructuredPrompt): string {
  return [
    'Subjects:',
    ...p.subjects.map((s) => `- ${oneLine(s.label)}: ${oneLine(s.description)}`),
    'Shots:',
    ...p.shots.map((s, i) => `${i + 1}. ${seconds(s.start)}-${seconds(s.end)} s: ${oneLine(s.description)}`),
    'Sound:',
    `- Voice: ${oneLine(p.sound.voice)}`,
    `- Music: ${oneLine(p.sound.music)}`,
    `- Effects: ${oneLine(p.sound.effects)}`,
  ].join('\n');
}

/**
 * The prompt as a StructuredPrompt when it is exactly in our format, else null. Blank lines and
 * trailing spaces are allowed; anything else outside the three sections, a section out of order,
 * an empty section, shots not numbered 1, 2, 3... or a Sound section without exactly its three
 * lines is not the format.
 */
export function parseStructuredPrompt(text: string): StructuredPrompt | null {
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const at = (h: string) => lines.indexOf(h);
  const [a, b, c] = [at('Subjects:'), at('Shots:'), at('Sound:')];
  if (a !== 0 || !(b > a + 1) || !(c > b + 1) || c + 4 !== lines.length) return null;
  const subjects: Subject[] = [];
  for (const l of lines.slice(a + 1, b)) {
    const m = SUBJECT_LINE.exec(l);
    if (!m || !(REF_LABEL.test(m[1]) || NAME_LABEL.test(m[1])) || !m[2].trim()) return null;
    subjects.push({ label: m[1], description: m[2].trim() });
  }
  const shots: Shot[] = [];
  for (const [i, l] of lines.slice(b + 1, c).entries()) {
    const m = SHOT_LINE.exec(l);
    if (!m || Number(m[1]) !== i + 1 || !m[4].trim()) return null;
    shots.push({ start: Number(m[2]), end: Number(m[3]), description: m[4].trim() });
  }
  const sound: Partial<StructuredPrompt['sound']> = {};
  const order = ['Voice', 'Music', 'Effects'];
  for (const [i, l] of lines.slice(c + 1).entries()) {
    const m = SOUND_LINE.exec(l);
    if (!m || m[1] !== order[i] || !m[2].trim()) return null;
    sound[m[1].toLowerCase() as keyof StructuredPrompt['sound']] = m[2].trim();
  }
  return { subjects, shots, sound: sound as StructuredPrompt['sound'] };
}

/** What the request gives the prompt to refer to, and how long the video is. */
export interface PromptFrame {
  /** Images `<Picture N>` may name (the images of `media`). */
  pictures: number;
  audios: number;
  durationSeconds: number;
}

/**
 * Why a structured prompt does not fit its request (empty: it fits): every `<Picture N>` and
 * `<Audio N>` it names exists, every reference of the request is described under Subjects, shots
 * run forward without overlapping inside the duration, and nothing is empty.
 */
export function checkStructuredPrompt(p: StructuredPrompt, frame: PromptFrame): string[] {
  const problems: string[] = [];
  if (p.subjects.length === 0) problems.push('no subjects');
  if (p.shots.length === 0) problems.push('no shots');
  const everything = [
    ...p.subjects.flatMap((s) => [s.label, s.description]),
    ...p.shots.map((s) => s.description),
    p.sound.voice, p.sound.music, p.sound.effects,
  ];
  for (const text of everything) {
    for (const m of text.matchAll(REF)) {
      const n = Number(m[2]);
      const max = m[1] === 'Picture' ? frame.pictures : frame.audios;
      if (n > max) problems.push(`<${m[1]} ${n}> does not exist (the request has ${max} ${m[1] === 'Picture' ? 'image' : 'audio'} reference${max === 1 ? '' : 's'})`);
    }
  }
  const defined = new Set(p.subjects.map((s) => s.label));
  for (const [kind, count] of [['Picture', frame.pictures], ['Audio', frame.audios]] as const)
    for (let n = 1; n <= count; n++) if (!defined.has(`<${kind} ${n}>`)) problems.push(`<${kind} ${n}> is not described under Subjects`);
  for (const s of p.subjects) {
    if (!oneLine(s.label) || !(REF_LABEL.test(oneLine(s.label)) || NAME_LABEL.test(oneLine(s.label)))) problems.push(`subject label ${JSON.stringify(s.label)} is not a reference or a short name`);
    if (!oneLine(s.description)) problems.push(`subject ${s.label} has no description`);
  }
  let end = 0;
  p.shots.forEach((s, i) => {
    if (!oneLine(s.description)) problems.push(`shot ${i + 1} has no description`);
    if (!(Number.isFinite(s.start) && Number.isFinite(s.end)) || s.start < end || s.end <= s.start)
      problems.push(`shot ${i + 1} (${s.start}-${s.end} s) does not follow the previous shot`);
    if (s.end > frame.durationSeconds) problems.push(`shot ${i + 1} ends at ${s.end} s, after the video's ${frame.durationSeconds} s`);
    end = Math.max(end, s.end);
  });
  for (const k of ['voice', 'music', 'effects'] as const) if (!oneLine(p.sound[k] ?? '')) problems.push(`sound ${k} is empty (write none)`);
  return problems;
}
