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
CMD ["npm", "start"]
