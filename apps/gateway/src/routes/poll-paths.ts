// The poll routes' paths, declared once: the API router mounts them, the cached-poll lane matches
// the same URLs, and both count them in the HTTP metrics under the same route label.
export const API_MOUNT = '/api';

export type PollType = 'video' | 'image';

/** The poll route of a task type, as the API router (mounted at API_MOUNT) declares it. */
export const pollRoutePath = (type: PollType): string => `/${type}/tasks/:taskId`;

/** The route label of the HTTP metrics for a poll: the full pattern, as Express reports it. */
export const pollRouteLabel = (type: PollType): string => API_MOUNT + pollRoutePath(type);

/**
 * A poll URL in its documented form only (lower case, no trailing slash, no percent-encoding, no
 * query): what the lane answers. Express matches more spellings; those take the chain.
 */
export const DOCUMENTED_POLL_URL = /^\/api\/(image|video)\/tasks\/([A-Za-z0-9_-]{1,200})$/;

const IMAGE_POLL = `${API_MOUNT}/image/tasks/`;
const VIDEO_POLL = `${API_MOUNT}/video/tasks/`;
/** Where a documented poll URL's task id starts (both prefixes are as long). */
const ID_AT = IMAGE_POLL.length;
const ID_TO_END = /[A-Za-z0-9_-]{1,200}$/y;

/**
 * The task type of a URL DOCUMENTED_POLL_URL matches, undefined for any other (its task id is
 * pollTaskId(url)). The same test without the regular expression's match array and captures,
 * which cost the lane about a third of a microsecond per poll.
 */
export function documentedPollType(url: string): PollType | undefined {
  const type = url.startsWith(IMAGE_POLL) ? 'image' : url.startsWith(VIDEO_POLL) ? 'video' : undefined;
  if (type === undefined) return undefined;
  ID_TO_END.lastIndex = ID_AT;
  return ID_TO_END.test(url) ? type : undefined;
}

/** The task id of a URL documentedPollType accepted. */
export const pollTaskId = (url: string): string => url.slice(ID_AT);
