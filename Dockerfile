# Fieldline on Node 24. The image runs the same `npm start` as a developer machine; give DATABASE_URL for
# PostgreSQL, or mount a volume on /app/data for the embedded database.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/app/data
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts tsconfig.json ./
# Dev dependencies are kept: tsx runs the TypeScript sources; the postinstall step runs `prisma generate`.
RUN npm ci --include=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY schema.graphql ./
RUN mkdir -p /app/data && chown -R node:node /app/data
USER node
EXPOSE 3000
VOLUME ["/app/data"]
# Liveness, not readiness: an orchestrator that replaces unhealthy containers (Swarm, ECS) must not restart every
# replica because the database is down, which a restart cannot fix. /readyz is for routing traffic (a Kubernetes
# readinessProbe, a load balancer's target check, docker-compose's depends_on). The image has no curl: Node's fetch.
# The start period covers the migrations, applied before the server listens. See docs/operations.md.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["npm", "start"]
