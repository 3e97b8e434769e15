// The reference files of a task as an adapter sees them: role, URL, type, and the bytes on demand.
// Order is our `<Picture N>` / `<Audio N>` numbering (spec: `<Picture N>` counts the images of
// `media` in request order): frames first (first, last), then `media` / `images` in request order,
// so an adapter that numbers images keeps the client's numbering by skipping the frames.
import type { MediaRef, TaskSpec } from '@mediagen/catalog';
import type { ReferenceRole, RenderReference } from './channel-adapter';

/** Loads a reference's bytes (our storage for our own files, else the media URL policy). */
export type ReferenceLoader = (ref: MediaRef) => Promise<Buffer>;

const ROLE_BY_KIND: Record<MediaRef['kind'], ReferenceRole> = {
  image: 'reference_image',
  video: 'reference_video',
  audio: 'reference_audio',
};

export function renderReferences(spec: TaskSpec, load: ReferenceLoader): RenderReference[] {
  const one = (ref: MediaRef, role: ReferenceRole): RenderReference => {
    let bytes: Promise<Buffer> | undefined;
    return {
      role,
      url: ref.url,
      contentType: ref.mime ?? `${ref.kind}/*`,
      // Loaded once, and only by adapters that send bytes (Gemini): the others pass the URL.
      data: () => (bytes ??= load(ref)),
    };
  };
  if (spec.type === 'image') return spec.images.map((r) => one(r, 'reference_image'));
  const refs: RenderReference[] = [];
  if (spec.firstFrame) refs.push(one(spec.firstFrame, 'first_frame'));
  if (spec.lastFrame) refs.push(one(spec.lastFrame, 'last_frame'));
  for (const m of spec.media) refs.push(one(m, m.role === 'first_frame' ? 'first_frame' : m.role === 'last_frame' ? 'last_frame' : ROLE_BY_KIND[m.kind]));
  return refs;
}
