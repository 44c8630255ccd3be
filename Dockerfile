# One image for both processes: `node apps/api/dist/main.js` or `node apps/worker/dist/main.js`.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.json ./
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY packages/channels/package.json packages/channels/
COPY packages/config/package.json packages/config/
COPY packages/logger/package.json packages/logger/
COPY packages/protocol/package.json packages/protocol/
COPY packages/providers/package.json packages/providers/
COPY packages/queue/package.json packages/queue/
COPY packages/state/package.json packages/state/
COPY packages/testing/package.json packages/testing/
RUN npm install --no-audit --no-fund
COPY apps apps
COPY packages packages
RUN TURBO_TELEMETRY_DISABLED=1 npx turbo run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 8080
CMD ["node", "apps/api/dist/main.js"]
