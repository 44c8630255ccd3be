# One image for both processes: `node apps/api/dist/main.js` or `node apps/worker/dist/main.js`.
# scripts/docker-replay.mjs replays these steps on a fresh copy in CI (Docker cannot run there).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.json ./
COPY apps apps
COPY packages packages
RUN npm install --no-audit --no-fund
RUN TURBO_TELEMETRY_DISABLED=1 npx turbo run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 8080
CMD ["node", "apps/api/dist/main.js"]
