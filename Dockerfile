# Motu's container image: built in one stage (dependencies with their native parts, TypeScript, the SDK and the
# back-office bundles), run in another with the production dependencies only, as the unprivileged `node` user.
# Default: the embedded SQLite database in the /data volume; set DATABASE_URL for PostgreSQL (compose.yaml).
FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles SQLite when no prebuilt binary fits the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
# `npm ci` runs `prepare`, which builds dist/ (server, SDK, back-office).
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    MOTU_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
# The guides served at /docs/guides, read from the repository's own files.
COPY README.md ./
COPY docs ./docs
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "bin/motu.js", "serve"]
