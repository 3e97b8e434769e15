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
