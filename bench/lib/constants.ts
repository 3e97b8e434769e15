// Settings the benchmark must share with the code it measures, so a floor pays what the app pays.

/** apps/gateway/src/deps.ts: the gateway's Prisma pool. */
export const GATEWAY_POOL_SIZE = 20;
