# syntax=docker/dockerfile:1
# The current LTS line (Node 20 reached end of life in April 2026).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
# bin/paymirror runs the bundle alone (scripts/bundle.mjs) through its launcher; node_modules
# stays for the files some packages read beside their code (bull-board's UI, ioredis's
# package.json).
COPY --from=build /app/dist/cli/launch.mjs /app/dist/cli/paymirror.cjs /app/dist/cli/paymirror.cjs.map ./dist/cli/
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
# The console's stylesheet and script (src/console/assets.ts); Chart.js comes from node_modules.
COPY assets ./assets
# dist/ stays root's: the launcher's V8 code caches (dist/cli/code-cache/) are not written here,
# since bytecode the app's user could write would run as the app's code. Processes compile the
# bundle at each start instead, as without a cache.
RUN mkdir -p /app/data/spool && chown -R node:node /app/data
ENV SPOOL_DIR=/app/data/spool
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["bin/paymirror"]
CMD ["start"]
