# Fieldline's production image (docs/operations.md, "Deployment"). Two stages:
#   build:   the whole lockfile (patch-package and the Prisma client generator run here), then pruned to the
#            production dependencies;
#   runtime: Node 24 from the base image, the pruned node_modules, the TypeScript sources, nothing else.
# No second Node: the `node` npm package (how developer machines with an older system Node run the scripts on
# Node 24) would download one in its preinstall step; every install here runs with --ignore-scripts and the
# package is deleted, so `node` is the base image's. Written without a Docker daemon at hand: see docs/decisions.md.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY patches ./patches
COPY prisma ./prisma
# --ignore-scripts: skips the `node` package's download of a second Node 24 and @prisma/engines' download of native
# engines (the server uses driver adapters and the wasm schema engine). The two install steps the server needs
# run by hand: the PGlite patch, and the Prisma client generated into src/generated/prisma.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/.bin/node \
 && npx patch-package \
 && PRISMA_SCHEMA_ENGINE_BINARY=/app/package.json npx prisma generate \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/.bin/node \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# Everything the process writes lives under /data (one volume): the embedded database when DATABASE_URL is unset.
# With PostgreSQL nothing is written at all, so the root file system can be read-only (`read_only: true` in compose;
# /tmp a tmpfs for the odd library that wants one).
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data \
    NODE_OPTIONS="--max-semi-space-size=16 --disable-warning=ExperimentalWarning"
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/src/generated ./src/generated
COPY package.json schema.graphql tsconfig.json ./
COPY prisma ./prisma
COPY bin ./bin
COPY src ./src
COPY deploy/migrate.ts ./deploy/migrate.ts
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# Liveness, not readiness: an orchestrator that replaces unhealthy containers (Swarm, ECS) must not restart every
# replica because the database is down, which a restart cannot fix. /readyz is for routing traffic (the load
# balancer's check, compose's depends_on, a Kubernetes readinessProbe). No curl in the slim image: Node's fetch.
# The start period covers the migrations, applied before the server listens. See docs/operations.md.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The TypeScript sources run on Node 24's own TypeScript support (no tsx, no build step): type stripping alone
# refuses the sources' parameter properties, --experimental-transform-types accepts them. Node is PID 1 and gets
# SIGTERM itself (no npm in between), so `docker stop` drains (docs/operations.md, "Stopping and keep-alive").
# The migrate service of docker-compose.yml runs `node --experimental-transform-types deploy/migrate.ts` instead.
CMD ["node", "--experimental-transform-types", "src/main.ts"]
