// Where the shared result-file route lives (media-route.ts).
export const mediaUrlPath = (renderId: string, n: number): string => `/media/${encodeURIComponent(renderId)}/${n}`;
