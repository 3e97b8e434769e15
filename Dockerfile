# One image for every process; the command picks the app:
#   gateway (default)  npx tsx apps/gateway/src/main.ts
#   worker             npx tsx apps/worker/src/main.ts
#   provider-sim       npx tsx apps/provider-sim/src/main.ts
#   migrate            npx tsx scripts/prepare-db.ts
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/gateway/package.json apps/gateway/
COPY apps/worker/package.json apps/worker/
COPY apps/provider-sim/package.json apps/provider-sim/
COPY packages/catalog/package.json packages/catalog/
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/errors/package.json packages/errors/
COPY packages/media/package.json packages/media/
COPY packages/providers/package.json packages/providers/
COPY packages/queue/package.json packages/queue/
COPY packages/storage/package.json packages/storage/
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && DATABASE_URL=postgresql://build@localhost/build npx prisma generate

FROM deps AS prune
RUN npm prune --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Prisma's CLI (migrations) and tsx are needed at run time; keep them from the full install.
COPY --from=prune /app/node_modules ./node_modules
COPY --from=deps /app/node_modules/prisma ./node_modules/prisma
COPY --from=deps /app/node_modules/@prisma ./node_modules/@prisma
COPY --from=deps /app/packages/db/src/generated ./packages/db/src/generated
COPY . .
RUN mkdir -p /data && chown -R node:node /data
USER node
ENV DATA_DIR=/data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["npx", "tsx", "apps/gateway/src/main.ts"]
