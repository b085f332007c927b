# syntax=docker/dockerfile:1
# Node 24, the current LTS. paymirror runs on Node 20.19 or later (package.json engines).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci applies patches/ (postinstall): never --ignore-scripts here.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# bin/paymirror's runtime defaults, stated to be seen and changed (docs/scaling.md, "Runtime
# flags"). PAYMIRROR_V8_POOL_SIZE defaults to a core less than nproc counts: set it to one less
# than the container's CPU limit.
ENV MALLOC_ARENA_MAX=2 \
    PAYMIRROR_MAX_OLD_SPACE_MB=512 \
    PAYMIRROR_MAX_SEMI_SPACE_MB=8 \
    PAYMIRROR_HEAP_GROWING_PERCENT=70
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
# The console's stylesheet and script (src/console/assets.ts); Chart.js comes from node_modules.
COPY assets ./assets
RUN mkdir -p /app/data/spool && chown -R node:node /app/data
ENV SPOOL_DIR=/app/data/spool
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["bin/paymirror"]
CMD ["start"]
