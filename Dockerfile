# One image for every process; the command picks the app (docker-compose.yml sets it per service):
#   gateway (default)  node --max-semi-space-size=16 --import tsx apps/gateway/src/main.ts
#   worker             node --max-semi-space-size=16 --import tsx apps/worker/src/main.ts
#   provider-sim       node --import tsx apps/provider-sim/src/main.ts
#   migrate (one-shot) node --import tsx scripts/prepare-db.ts
# The TypeScript runs through tsx exactly as in development and CI, so there is no second build
# output that could drift from what the tests ran. `node --import tsx` (not `npx tsx`) keeps the app
# as the container's main process, so SIGTERM reaches its graceful shutdown directly. The gateway's
# Node flag caps V8's young generation at Node 20's size (scripts/lib/node-flags.ts says why). The
# gateway also wants glibc's malloc settings in its environment (compose's gateway service sets
# them; pass `-e MALLOC_ARENA_MAX=2 -e MALLOC_MMAP_THRESHOLD_=131072 -e MALLOC_TRIM_THRESHOLD_=131072`
# to a bare `docker run`); the worker does not (node-flags.ts).

FROM node:24-bookworm-slim AS deps
WORKDIR /app
# Manifests first: the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY apps/gateway/package.json apps/gateway/
COPY apps/worker/package.json apps/worker/
COPY apps/provider-sim/package.json apps/provider-sim/
COPY packages/catalog/package.json packages/catalog/
COPY packages/channel-check/package.json packages/channel-check/
COPY packages/channel-health/package.json packages/channel-health/
COPY packages/client/package.json packages/client/
COPY packages/config/package.json packages/config/
COPY packages/console/package.json packages/console/
COPY packages/account/package.json packages/account/
COPY packages/db/package.json packages/db/
COPY packages/errors/package.json packages/errors/
COPY packages/logging/package.json packages/logging/
COPY packages/media/package.json packages/media/
COPY packages/metrics/package.json packages/metrics/
COPY packages/providers/package.json packages/providers/
COPY packages/prompt-optimizer/package.json packages/prompt-optimizer/
COPY packages/queue/package.json packages/queue/
COPY packages/runtime/package.json packages/runtime/
COPY packages/settle/package.json packages/settle/
COPY packages/storage/package.json packages/storage/
COPY packages/webhooks/package.json packages/webhooks/
COPY prisma ./prisma
COPY prisma.config.ts ./
# `npm ci`: exactly the lockfile, or a failed build when it is out of sync with the manifests (every
# workspace manifest must be copied above). --ignore-scripts: nothing may rely on a dependency's
# install script, and our own postinstall (prisma generate) runs explicitly below. Prisma needs a
# DATABASE_URL to pick its JS engine; generate never connects to it.
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && DATABASE_URL=postgresql://build@localhost/build npx prisma generate

FROM deps AS prune
# The prisma CLI is a production dependency: the migrate service runs `prisma migrate deploy`.
RUN npm prune --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    DATA_DIR=/data \
    PORT=3000
WORKDIR /app
COPY --from=prune /app/node_modules ./node_modules
COPY --from=deps /app/packages/db/src/generated ./packages/db/src/generated
# Code stays owned by root: the app user can read it, not change it. Named folders only (and
# .dockerignore is an allow-list too): no tests, benches, keys or local config in the image.
COPY package.json package-lock.json tsconfig.json tsconfig.base.json prisma.config.ts ./
COPY prisma ./prisma
COPY apps ./apps
COPY packages ./packages
COPY scripts/prepare-db.ts ./scripts/prepare-db.ts
# A named volume mounted at /data starts with this ownership, so the non-root user can write files.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# Gateway liveness; compose gives the worker (WORKER_PORT) and the simulator (SIM_PORT) their own.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=16", "--import", "tsx", "apps/gateway/src/main.ts"]
