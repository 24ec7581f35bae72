# syntax=docker/dockerfile:1
# vendor-api image: the same steps CI runs (.ci/run: npm ci, npm run build, then plain `node`
# on dist/ — scripts/smoke-dist.sh). Built elsewhere: our machines reach no base images.

# --- build: install everything, compile TypeScript to dist/ ---------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# `listen`'s forwarding lives in the client package (src/cli/listen.ts imports it as it is).
COPY clients/typescript/src/forwarding.js clients/typescript/src/forwarding.d.ts ./clients/typescript/src/
RUN npm run build && npm prune --omit=dev

# --- runtime: production dependencies, dist/ and migrations; no compiler, not root ---------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 WORKER_PORT=3001 DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node bin ./bin
COPY --chown=node:node migrations ./migrations
COPY --chown=node:node clients/typescript/src/forwarding.js ./clients/typescript/src/
# The guides at /docs/guides are rendered from these at start.
COPY --chown=node:node docs/guides ./docs/guides
COPY --chown=node:node CHANGELOG.md ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 3001
# /health on the API port; a worker (--role worker) answers it on WORKER_PORT: set HEALTH_PORT.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||process.env.PORT)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/main.js"]
CMD ["--role", "all"]
